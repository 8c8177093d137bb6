export * from "./allowlist.ts";
export * from "./app.ts";
export * from "./client.ts";
export * from "./relayer.ts";
export * from "./store.ts";
export { startRelayer } from "./server.ts";
