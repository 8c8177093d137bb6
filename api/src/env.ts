import { fileURLToPath } from "node:url";
import { defaultDeploymentsFile, parseEnv, readSecretFiles, refuseSharedSigner, urlList } from "@agenthub/common";
import { z } from "zod";

const bool = z.enum(["true", "false"]).transform((v) => v === "true");
const hexKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "32-byte hex");
const wei = z
  .string()
  .regex(/^\d{1,30}$/, "an unsigned integer")
  .transform((v) => BigInt(v));

export const apiEnvSchema = z.object({
  DATABASE_URL: z.string().min(1),
  RPC_URL: z.string().url().default("http://127.0.0.1:8545"),
  /** Several JSON-RPC endpoints, in order of preference (viem fallback); overrides RPC_URL when set. */
  RPC_URLS: urlList,
  /** Connections of the pool user requests share, per API process. */
  DATABASE_POOL_SIZE: z.coerce.number().int().positive().default(20),
  /** How long a request waits for a free connection (request and search pools), then 503 SERVICE_BUSY. */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  DEPLOYMENTS_FILE: z.string().default(defaultDeploymentsFile),
  RELAYER_URL: z.string().url().default("http://127.0.0.1:3001"),
  RELAYER_TOKEN: z.string().min(16),
  /** Deadline of a relayed transaction call (keep it above the relayer's RECEIPT_TIMEOUT_MS); then 504. */
  RELAYER_TIMEOUT_MS: z.coerce.number().int().positive().default(130_000),
  /** Bearer token for GET /metrics; unset turns /metrics off. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** GET /ready fails while the indexer is more than this many blocks behind the chain head. */
  READY_MAX_INDEXER_LAG_BLOCKS: z.coerce.number().int().min(0).default(10),
  /**
   * GET /ready fails when the indexer's own heartbeat (Ponder writes it every 10 s) is older than this: a dead or
   * stalled indexer, which block lag alone misses on a quiet chain. Above 10; Ponder's own lock expires at 25.
   */
  READY_MAX_INDEXER_HEARTBEAT_AGE_SECONDS: z.coerce.number().int().min(11).default(30),
  /** Each /ready and /metrics probe (database, chain, relayer) gives up after this long. */
  READY_TIMEOUT_MS: z.coerce.number().int().positive().default(2_000),
  HOST: z.string().default("0.0.0.0"),
  PORT: z.coerce.number().int().default(3000),
  /** Base URL users reach the API at (claim links are built from it). */
  PUBLIC_URL: z.string().url().default("http://localhost:3000"),
  /**
   * Origins whose browser pages may call the API (CORS), comma-separated `scheme://host[:port]`, or `*` for any.
   * Unset: PUBLIC_URL's origin and any http://localhost / 127.0.0.1 port (the web app and local development).
   */
  CORS_ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return undefined;
      if (v.trim() === "*") return "*" as const;
      const origins = v.split(",").map((o) => o.trim());
      for (const origin of origins) {
        if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
          ctx.addIssue({ code: "custom", message: `"${origin}" is not an origin (scheme://host[:port], no path)` });
          return z.NEVER;
        }
      }
      return origins;
    }),
  /** The built web app (pnpm --filter @agenthub/web build), served at /; without it / answers a static front door. */
  WEB_DIST_DIR: z.string().default(fileURLToPath(new URL("../../web/dist", import.meta.url))),
  /** Schema where Ponder publishes its views (ponder start --views-schema). */
  INDEXER_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/)
    .default("chain"),
  LOCAL_CHAIN: bool.default(false),
  /**
   * Proxies in front of the API that append to X-Forwarded-For (0: none, use the socket peer). The client IP is the
   * entry that many hops from the right; entries further left are client-controlled. "true" = 1, "false" = 0.
   */
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|\d{1,2})$/, "a number of proxy hops (or true = 1, false = 0)")
    .transform((v) => (v === "true" ? 1 : v === "false" ? 0 : Number(v)))
    .default(0),
  ADMIN_TOKEN: z.string().min(16),
  /** AES-256-GCM key for agent wallet keys at rest. */
  KEY_ENCRYPTION_KEY: hexKey,
  PLATFORM_RECIPIENT_ADDRESS: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  IPFS_API_URL: z.string().url().optional(),
  /** Multiplies every rate limit (local demos only; the API logs it at start). */
  RATE_LIMIT_MULTIPLIER: z.coerce.number().positive().default(1),
  /** How long a write waits for the indexer to reflect its transaction. */
  INDEXER_WAIT_MS: z.coerce.number().int().positive().default(30_000),
  /** After a claim, how long the claimant can fetch the key again (same code and signature) before it is erased. */
  CLAIM_KEY_REDELIVERY_SECONDS: z.coerce.number().int().min(0).max(86_400).default(600),
  /** How often claimed keys past their redelivery window are erased and orphaned mints adopted. */
  KEY_CUSTODY_INTERVAL_SECONDS: z.coerce.number().int().positive().default(30),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** How often each API process settles the books of x402 payments whose settlement outcome was unknown. */
  PAYMENT_RECONCILE_INTERVAL_MS: z.coerce.number().int().positive().default(15_000),
  /** Search answers cached per process, emptied on any change to the search index; 0 turns the cache off. */
  SEARCH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  SEARCH_CACHE_ENTRIES: z.coerce.number().int().positive().default(10_000),
  /**
   * Agent, reputation and list answers cached per process, emptied on any change to the rows behind them (API tables
   * by NOTIFY, chain facts at each indexed block); 0 turns the cache off.
   */
  READ_CACHE_TTL_MS: z.coerce.number().int().min(0).default(2_000),
  READ_CACHE_ENTRIES: z.coerce.number().int().positive().default(10_000),
  /** Connections of the search's own pool (generic plans for its prepared statements), per API process. */
  SEARCH_POOL_SIZE: z.coerce.number().int().positive().default(10),
  /** How often the search index is analyzed and its lexeme/tag shares copied for the search planner gate. */
  SEARCH_STATS_INTERVAL_SECONDS: z.coerce.number().int().positive().default(3_600),
  /** Background jobs (pg-boss queue in schema pgboss): run them in this process. */
  JOBS_ENABLED: bool.default(true),
  UPTIME_INTERVAL_SECONDS: z.coerce.number().int().positive().default(300),
  UPTIME_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Health checks in flight per uptime batch, and agents per batch job (batches spread over API processes). */
  UPTIME_CONCURRENCY: z.coerce.number().int().positive().default(20),
  UPTIME_BATCH_SIZE: z.coerce.number().int().positive().default(100),
  /** Let health checks reach loopback and private addresses (link-local never). Unset: only with LOCAL_CHAIN. */
  ALLOW_PRIVATE_UPTIME_TARGETS: bool.optional(),
  REPUTATION_INTERVAL_SECONDS: z.coerce.number().int().positive().default(86_400),
  EXPIRY_INTERVAL_SECONDS: z.coerce.number().int().positive().default(86_400),
  /** How often indexed run/stake changes are folded into reputation (the "run completion or failure" trigger). */
  RECOMPUTE_POLL_SECONDS: z.coerce.number().int().positive().default(10),
  /** DNS server for domain verification TXT lookups, host:port (default: the system's resolvers). */
  DNS_SERVER: z.string().optional(),
  DNS_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /** Organization webhooks: how often due deliveries are sent, the receiver's timeout, the first retry delay. */
  WEBHOOK_DISPATCH_INTERVAL_SECONDS: z.coerce.number().int().positive().default(2),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().positive().default(60),
  /** Let webhooks reach loopback and private addresses (link-local never). Unset: as for uptime targets. */
  ALLOW_PRIVATE_WEBHOOK_TARGETS: bool.optional(),
  /**
   * White-label sites: organization <sub> is served at <sub>.<ORG_BASE_DOMAIN> (scheme and port of PUBLIC_URL), which
   * is its `dashboard` URL and its custom domain's CNAME target. Unset: PUBLIC_URL's host name (localhost if an IP).
   */
  ORG_BASE_DOMAIN: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/, "a DNS name such as agents.example.com")
    .optional(),
  /** Relayed profile writes (setTokenURI): one per agent per window (updates inside it are published together). */
  PROFILE_COALESCE_SECONDS: z.coerce.number().int().positive().default(60),
  PROFILE_PUBLISH_INTERVAL_SECONDS: z.coerce.number().int().positive().default(15),
  /** Relayed profile writes allowed per agent and per owner address per day (429 RELAY_QUOTA_EXCEEDED past them). */
  PROFILE_RELAYS_PER_AGENT_DAY: z.coerce.number().int().positive().default(24),
  PROFILE_RELAYS_PER_OWNER_DAY: z.coerce.number().int().positive().default(100),
  /**
   * The paymaster's approving key (ERC-7677 at /api/paymaster; VerifyingPaymaster.verifyingSigner). Never the
   * relayer's key. Unset: no gas sponsorship from this process.
   */
  PAYMASTER_SIGNER_KEY: hexKey.optional(),
  /**
   * A key holding RunEscrow's ARBITER_ROLE (never the relayer's): the admin resolve route sends `resolve` from it
   * (it needs ETH for gas). Unset: disputes are resolved by the arbiter's own wallet or a proposal, and
   * POST /api/runs/:id/resolve answers 503 ARBITER_NOT_CONFIGURED.
   */
  ARBITER_PRIVATE_KEY: hexKey.optional(),
  /** How long a paymaster signature stays usable (chain time). */
  PAYMASTER_VALIDITY_SECONDS: z.coerce.number().int().min(30).max(86_400).default(600),
  /** Sponsorship budgets until an admin sets them (PUT /api/paymaster/budget): wei per agent and in total per period. */
  PAYMASTER_AGENT_BUDGET_WEI: wei.default(10n ** 16n),
  PAYMASTER_GLOBAL_BUDGET_WEI: wei.default(10n ** 18n),
  PAYMASTER_BUDGET_PERIOD_SECONDS: z.coerce.number().int().min(60).default(86_400),
  /** Refused above these: the sum of an operation's gas limits, and maxFeePerGas in % of the network's estimate. */
  PAYMASTER_MAX_GAS_PER_OPERATION: wei.default(2_000_000n),
  PAYMASTER_MAX_FEE_PERCENT: z.coerce.number().int().min(100).default(300),
  /**
   * preVerificationGas is refused above what the operation's size requires plus this margin (%). On an OP-stack
   * chain bundlers add the L1 data fee to it: raise the margin there (docs/decisions.md, "Sponsorship policy").
   */
  PAYMASTER_PRE_VERIFICATION_GAS_MARGIN_PERCENT: z.coerce.number().int().min(0).max(1000).default(10),
  /** The floor alarm: an error log (and agenthub_paymaster_deposit_low = 1) while the EntryPoint deposit is below. */
  PAYMASTER_DEPOSIT_FLOOR_WEI: wei.default(5n * 10n ** 16n),
  PAYMASTER_DEPOSIT_CHECK_SECONDS: z.coerce.number().int().positive().default(60),
  /** The ERC-4337 bundler agents send their operations to; /ready checks it when set. */
  BUNDLER_URL: z.string().url().optional(),
  /** How often expired nonces, tokens, rate-limit windows, old webhook deliveries and spent x402 rows are deleted. */
  PRUNE_INTERVAL_SECONDS: z.coerce.number().int().positive().default(3_600),
  /**
   * How often approved runs' rewards are paid to the agents' owners (one RunEscrow.payRewards per tick for every agent
   * owed, up to REWARD_PAYOUT_BATCH): the delay between an approval and the owner's USDC.
   */
  REWARD_PAYOUT_INTERVAL_SECONDS: z.coerce.number().int().positive().default(10),
  /**
   * How often runs past their escrow windows are ended (RunEscrow.releaseAfterReview for a submission the poster left
   * alone past the review window, expireDispute for a dispute unresolved past the dispute window), one relayed
   * transaction per run: the delay between a window's end and the agent's reward or the poster's refund.
   */
  RUN_EXIT_INTERVAL_SECONDS: z.coerce.number().int().positive().default(60),
  /** Agents paid per payout transaction (the rest wait for the next tick). */
  REWARD_PAYOUT_BATCH: z.coerce.number().int().min(1).max(200).default(50),
  /** How often the accrued escrow fees are checked against FEE_SWEEP_THRESHOLD (and swept to the treasury). */
  FEE_SWEEP_INTERVAL_SECONDS: z.coerce.number().int().positive().default(3_600),
  /** Accrued fees (USDC base units) at which the fee-sweep job relays RunEscrow.sweepFees; default 100 USDC. */
  FEE_SWEEP_THRESHOLD: wei.default(100_000_000n),
  /** How often due subscription runs are created (chain time decides what is due). */
  SUBSCRIPTION_INTERVAL_SECONDS: z.coerce.number().int().positive().default(60),
});
export type ApiEnv = z.infer<typeof apiEnvSchema>;

/** The API's environment; refuses a PAYMASTER_SIGNER_KEY equal to the RELAYER_PRIVATE_KEY beside it (one .env). */
export function loadApiEnv(given: NodeJS.ProcessEnv = process.env): ApiEnv {
  const source = readSecretFiles(given);
  const env = parseEnv(apiEnvSchema, source);
  refuseSharedSigner(env.PAYMASTER_SIGNER_KEY, source.RELAYER_PRIVATE_KEY);
  return env;
}
