import { loadRelayerEnv } from "./env.ts";
import { startRelayer } from "./server.ts";

const env = loadRelayerEnv();
const running = await startRelayer(env);
console.log(`relayer ${running.relayer.address} listening on ${running.url}`);
const shutdown = async () => {
  await running.close();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
