export { createApp } from "./app.ts";
export { type ApiEnv, apiEnvSchema, loadApiEnv } from "./env.ts";
export { type RunningApi, startApi } from "./server.ts";
