// The data layer's entry: a drizzle database over the pg pool (or over one connection inside withTransaction).
// Stores (api/src/stores, and the store modules beside each feature) are the only code that queries it.
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import type pg from "pg";
import * as schema from "./schema/index.ts";

export type Db = NodePgDatabase<typeof schema>;

/** A connection pool or one checked-out connection (inside a transaction): both answer `query`. */
export type Queryable = pg.Pool | pg.PoolClient;

export function createDb(client: Queryable): Db {
  return drizzle({ client, schema });
}

export { type ChainNames, type ChainViews, chainViews } from "./chain.ts";
export { withTransaction } from "./transaction.ts";
export { schema };
