import type { Deployments } from "@agenthub/common";
import type { RelayerClient } from "@agenthub/relayer/client";
import type pg from "pg";
import type { Logger } from "pino";
import type { PublicClient } from "viem";
import type { ApiEnv } from "./env.ts";
import type { IndexerProgress } from "./lib/indexer-progress.ts";
import type { IpfsStore } from "./lib/ipfs.ts";
import type { KeyStore } from "./lib/keystore.ts";
import type { RateLimiter } from "./lib/rate-limit.ts";
import type { Operations } from "./ops/operations.ts";
import type { Paymaster } from "./paymaster/paymaster.ts";
import type { PaymentInfo } from "./payments/types.ts";

/** Everything a route needs, created once at start-up and passed down (no module-level singletons). */
export interface Deps {
  env: ApiEnv;
  pool: pg.Pool;
  deployments: Deployments;
  chain: PublicClient;
  relayer: RelayerClient;
  logger: Logger;
  rateLimiter: RateLimiter;
  keys: KeyStore;
  ipfs: IpfsStore;
  /** The indexer's committed block, watched by one poller: writes wait on it instead of polling their rows. */
  indexer: IndexerProgress;
  /** Readiness probes and metrics, on their own small Postgres pool. */
  ops: Operations;
  /** Gas sponsorship (ERC-7677), when PAYMASTER_SIGNER_KEY is set. */
  paymaster?: Paymaster;
}

/** The organization a request's API key belongs to (set by the organization key middleware). */
export interface OrgAuth {
  id: string;
  plan: "starter" | "growth" | "enterprise";
  keyKind: "live" | "test";
  /** x-api-secret was presented and matches. */
  secretVerified: boolean;
}

/** `payment` is set by requirePayment (api/src/payments) on paid routes; `org` by the organization key middleware. */
export type AppEnv = { Variables: { deps: Deps; requestId: string; payment: PaymentInfo; org: OrgAuth | undefined } };
