import { defaultDeploymentsFile, parseEnv, readSecretFiles, refuseSharedSigner, urlList } from "@agenthub/common";
import { z } from "zod";

const wei = z.string().regex(/^\d+$/, "an integer amount of wei").transform(BigInt);

export const relayerEnvSchema = z.object({
  RPC_URL: z.string().url().default("http://127.0.0.1:8545"),
  /** Several JSON-RPC endpoints, in order of preference (viem fallback); overrides RPC_URL when set. */
  RPC_URLS: urlList,
  DATABASE_URL: z.string().min(1),
  DEPLOYMENTS_FILE: z.string().default(defaultDeploymentsFile),
  RELAYER_PRIVATE_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "32-byte hex private key"),
  /** Shared secret the API presents; the relayer only listens on loopback by default too. */
  RELAYER_TOKEN: z.string().min(16),
  RELAYER_HOST: z.string().default("127.0.0.1"),
  RELAYER_PORT: z.coerce.number().int().default(3001),
  /** Local chains only: enables the faucet. */
  LOCAL_CHAIN: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
  /** How long a request waits for its receipt; the transaction stays tracked (and replaced if stuck) after that. */
  RECEIPT_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  /** How often in-flight transactions are checked (default: 50 ms on local chains, 1 s otherwise). */
  RELAYER_POLL_INTERVAL_MS: z.coerce.number().int().positive().optional(),
  /** A transaction not mined this many blocks after it was sent is replaced with a higher fee (same nonce)... */
  RELAYER_REPLACE_AFTER_BLOCKS: z.coerce.number().int().positive().default(3),
  /** ...or this many seconds after, whichever comes first (covers a chain that stopped producing blocks). */
  RELAYER_REPLACE_AFTER_SECONDS: z.coerce.number().int().positive().default(60),
  /** Each replacement raises both EIP-1559 fees by at least this percentage (nodes require >= 10). */
  RELAYER_FEE_BUMP_PERCENT: z.coerce.number().int().min(10).max(1000).default(20),
  /** Never pay more than this per gas, replacements included (default 200 gwei). */
  RELAYER_MAX_FEE_PER_GAS_WEI: wei.default(200_000_000_000n),
  /** Below this signer balance the relayer logs a warning and sets relayer_signer_balance_low (default 0.01 ETH). */
  RELAYER_MIN_BALANCE_WEI: wei.default(10_000_000_000_000_000n),
  /** Bearer token for GET /metrics; unset turns /metrics off. */
  METRICS_TOKEN: z.string().min(16).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});
export type RelayerEnv = z.infer<typeof relayerEnvSchema>;

/** The relayer's environment; refuses a PAYMASTER_SIGNER_KEY beside it (one .env) equal to its own key. */
export function loadRelayerEnv(given: NodeJS.ProcessEnv = process.env): RelayerEnv {
  const source = readSecretFiles(given);
  const env = parseEnv(relayerEnvSchema, source);
  refuseSharedSigner(source.PAYMASTER_SIGNER_KEY, env.RELAYER_PRIVATE_KEY);
  return env;
}
