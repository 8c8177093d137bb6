import type { Deployments } from "@agenthub/common";
import type { RelayerClient } from "@agenthub/relayer/client";
import type pg from "pg";
import type { Logger } from "pino";
import type { PublicClient } from "viem";
import type { ApiEnv } from "./env.ts";

/** Everything a route needs, created once at start-up and passed down (no module-level singletons). */
export interface Deps {
  env: ApiEnv;
  pool: pg.Pool;
  deployments: Deployments;
  chain: PublicClient;
  relayer: RelayerClient;
  logger: Logger;
}

export type AppEnv = { Variables: { deps: Deps; requestId: string } };
