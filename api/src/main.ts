import { loadDotEnv } from "@agenthub/common";
import { loadApiEnv } from "./env.ts";
import { startApi } from "./server.ts";

const envFile = loadDotEnv();
const env = loadApiEnv();
const running = await startApi(env);
if (envFile)
  running.deps.logger.info({ file: envFile }, "configuration read from .env (real environment variables win)");
running.deps.logger.info(`API listening on ${env.PUBLIC_URL} (port ${env.PORT})`);
const shutdown = async () => {
  await running.close();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
