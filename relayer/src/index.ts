export * from "./allowlist.ts";
export * from "./app.ts";
export * from "./client.ts";
export * from "./relayer.ts";
export { startRelayer } from "./server.ts";
export * from "./store.ts";
