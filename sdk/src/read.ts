// @agenthub/sdk/read: the read-only client and what its answers are typed with, without any signing, x402 or chain
// code (no viem at run time). A page that only shows data (the web app's explorer) loads this first and the full
// client (@agenthub/sdk) only when someone signs.
export {
  AgentHubError,
  type ApiErrorCode,
  type ClientErrorCode,
  type ErrorCode,
  isAgentHubError,
  type KnownErrorCode,
} from "./errors.ts";
export { AgentHubReader } from "./read-client.ts";
export type { AgentHubReaderOptions } from "./read-core.ts";
export type { Answer, Config, components, paths, Query, Run, RunState, Schemas } from "./types.ts";
