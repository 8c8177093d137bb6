// `npm start`'s own configuration, parsed once with zod (the services parse theirs: api/src/env.ts, ...).
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "@agenthub/common";
import { z } from "zod";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

const port = (fallback: number) => z.coerce.number().int().min(1).max(65_535).default(fallback);

export const stackEnvSchema = z.object({
  PORT: port(3000),
  RELAYER_PORT: port(3001),
  INDEXER_PORT: port(42069),
  EMBEDDED_PG_PORT: port(54329),
  /** The local Hardhat node's JSON-RPC (no RPC_URL). */
  CHAIN_PORT: port(8545),
  /** The local ERC-4337 bundler (Alto), started with a local chain only (4337, as the standard's number). */
  BUNDLER_PORT: port(4337),
  /** Where the embedded Postgres cluster and the generated local secrets live. */
  DATA_DIR: z.string().min(1).default(join(repoRoot, ".data")),
  /** An external Postgres instead of the embedded one. */
  DATABASE_URL: z.string().url().optional(),
  /** An external chain (e.g. Base Sepolia) instead of a local Hardhat node. */
  RPC_URL: z.string().url().optional(),
  /**
   * The local chain is new on every start, so the database must start empty too. The embedded one always is; an
   * external DATABASE_URL is dropped and recreated only with RESET_DATABASE=true.
   */
  RESET_DATABASE: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
});
export type StackEnv = z.infer<typeof stackEnvSchema>;

export const loadStackEnv = (source: NodeJS.ProcessEnv = process.env) => parseEnv(stackEnvSchema, source);
