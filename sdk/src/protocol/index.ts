// The protocol lives in common/src/protocol (the API verifies with it as @agenthub/common/protocol); the SDK
// re-exports it unchanged. The published package carries it compiled in: its build (scripts/build-package.mjs,
// "vendor" in package.json) puts that folder here, so the private @agenthub/common is no dependency of the SDK.
export * from "../../../common/src/protocol/index.ts";
