import { parseEnv } from "@agenthub/common";
import { z } from "zod";

export const relayerEnvSchema = z.object({
  RPC_URL: z.string().url().default("http://127.0.0.1:8545"),
  DATABASE_URL: z.string().min(1),
  DEPLOYMENTS_FILE: z.string().default("deployments/localhost.json"),
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
  RECEIPT_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});
export type RelayerEnv = z.infer<typeof relayerEnvSchema>;

export const loadRelayerEnv = (source: NodeJS.ProcessEnv = process.env) => parseEnv(relayerEnvSchema, source);
