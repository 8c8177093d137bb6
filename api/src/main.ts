import { loadApiEnv } from "./env.ts";
import { startApi } from "./server.ts";

const env = loadApiEnv();
const running = await startApi(env);
running.deps.logger.info(`API listening on ${env.PUBLIC_URL} (port ${env.PORT})`);
const shutdown = async () => {
  await running.close();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
