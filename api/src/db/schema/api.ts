// Schema "api": every table the API owns (created by the numbered migrations in api/migrations, checked against
// these definitions by test/e2e/db-schema.test.ts). The indexer's tables are in ../chain.ts.
import { customType, pgSchema } from "drizzle-orm/pg-core";

export const api = pgSchema("api");

/** Raw bytes (encrypted keys, blobs): node-postgres reads and writes them as Buffers. */
export const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

/** A full-text search vector; only Postgres builds and reads it. */
export const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });
