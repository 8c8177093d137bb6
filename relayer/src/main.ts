import { loadDotEnv } from "@agenthub/common";
import pino from "pino";
import { loadRelayerEnv } from "./env.ts";
import { startRelayer } from "./server.ts";

const envFile = loadDotEnv();
const env = loadRelayerEnv();
const logger = pino({ level: env.LOG_LEVEL, base: { service: "relayer" } });
if (envFile) logger.info({ file: envFile }, "configuration read from .env (real environment variables win)");
const running = await startRelayer(env, env.RELAYER_PORT, logger);
logger.info({ url: running.url }, "relayer listening");
const shutdown = async () => {
  await running.close();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
