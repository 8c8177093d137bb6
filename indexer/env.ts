// The indexer's configuration, parsed once (Ponder evaluates ponder.config.ts in this process).
import { defaultDeploymentsFile, loadDotEnv, parseEnv, urlList } from "@agenthub/common";
import { z } from "zod";

export const indexerEnvSchema = z.object({
  DATABASE_URL: z.string().min(1),
  RPC_URL: z.string().url().default("http://127.0.0.1:8545"),
  /** Several JSON-RPC endpoints (Ponder balances and fails over between them); overrides RPC_URL when set. */
  RPC_URLS: urlList,
  DEPLOYMENTS_FILE: z.string().default(defaultDeploymentsFile),
  /** Local chains mine on demand: poll every 100 ms (Ponder's minimum) and skip the RPC cache. */
  LOCAL_CHAIN: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
});

/** Loads `.env` (real environment variables win), then parses the environment. */
export function loadIndexerEnv() {
  loadDotEnv();
  return parseEnv(indexerEnvSchema);
}
