import type { Resolver } from "node:dns/promises";
import type { Deployments } from "@agenthub/common";
import type { RelayerClient } from "@agenthub/relayer/client";
import type pg from "pg";
import type { Logger } from "pino";
import type { PublicClient } from "viem";
import type { ChainViews, Db } from "./db/index.ts";
import type { ApiEnv } from "./env.ts";
import type { AccountCode } from "./lib/account-code.ts";
import type { Arbiter } from "./lib/arbiter.ts";
import type { ChainClock } from "./lib/chain-time.ts";
import type { ConstantReads } from "./lib/constant-reads.ts";
import type { IndexerProgress } from "./lib/indexer-progress.ts";
import type { KeyStore } from "./lib/keystore.ts";
import type { ProtocolParamsReader } from "./lib/protocol.ts";
import type { RateLimiter } from "./lib/rate-limit.ts";
import type { MintBatcher } from "./mints/mint-batcher.ts";
import type { Operations } from "./ops/operations.ts";
import type { Paymaster } from "./paymaster/paymaster.ts";
import type { PaymentGate } from "./payments/gate.ts";
import type { PaymentInfo } from "./payments/types.ts";
import type { IpfsStore } from "./stores/ipfs.ts";
import type { ReadCache } from "./stores/read-cache.ts";
import type { AgentSearch } from "./use-cases/search/agent-search.ts";

/** Everything a route needs, created once at start-up and passed down (no module-level singletons). */
export interface Deps {
  env: ApiEnv;
  pool: pg.Pool;
  /** Drizzle over `pool`: what stores query with. */
  db: Db;
  /** The indexer's tables (Ponder views) as typed drizzle definitions: the only way code names them. */
  views: ChainViews;
  deployments: Deployments;
  chain: PublicClient;
  relayer: RelayerClient;
  logger: Logger;
  rateLimiter: RateLimiter;
  keys: KeyStore;
  ipfs: IpfsStore;
  /** Chain time ("now" for every time rule). */
  clock: ChainClock;
  /** Contract values fixed at deployment (the governance token's symbol), read once. */
  constants: ConstantReads;
  /** Governance parameters (fee rate, minimum stake, claim timeout) as of the latest block. */
  params: ProtocolParamsReader;
  /** The indexer's committed block, watched by one poller: writes wait on it instead of polling their rows. */
  indexer: IndexerProgress;
  /** Agent, reputation and list answers, kept until anything behind them changes (stores/read-cache.ts). */
  reads: ReadCache;
  /** The paid agent search with its answer cache and its own small pool. */
  search: AgentSearch;
  /** Identity mints, batched (group commit) through the relayer. */
  mints: MintBatcher;
  /** Readiness probes and metrics, on their own small Postgres pool. */
  ops: Operations;
  /** Which code accounts run (canonical ERC-4337 accounts), when the deployment has account abstraction. */
  accountCode?: AccountCode;
  /** Gas sponsorship (ERC-7677), when PAYMASTER_SIGNER_KEY is set. */
  paymaster?: Paymaster;
  /** Checks and settles payments on paid routes (spec x-payment and x402). */
  payments: PaymentGate;
  /** TXT lookups for domain verification (DNS_SERVER when set, else the system's resolvers). */
  dns: Resolver;
  /** Sends dispute resolutions from the ARBITER_ROLE key, when ARBITER_PRIVATE_KEY is set. */
  arbiter?: Arbiter;
}

/** The organization a request's API key belongs to (set by the organization key middleware). */
export interface OrgAuth {
  id: string;
  plan: "starter" | "growth" | "enterprise";
  keyKind: "live" | "test" | "member";
  /** x-api-secret was presented and matches. */
  secretVerified: boolean;
  /** admin: the organization key with its secret or an admin member's key; developer: the key alone (auth/roles.ts). */
  role: "admin" | "developer" | "viewer";
  /** The member whose key this is (member keys only). */
  memberId: string | null;
}

/** `payment` is set by requirePayment (api/src/payments) on paid routes; `org` by the organization key middleware. */
export type AppEnv = { Variables: { deps: Deps; requestId: string; payment: PaymentInfo; org: OrgAuth | undefined } };
