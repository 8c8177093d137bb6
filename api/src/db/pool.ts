import type pg from "pg";
import { OrgScopedPool } from "./org-scope.ts";

/** A request that cannot get a connection in time is answered 503 (never left waiting for good). */
export const POOL_CONNECT_TIMEOUT_MS = 10_000;

// Postgres numerics and int8 stay strings: money never becomes a JS number. Connections taken while a request with
// an organization key runs are scoped to that organization (org-scope.ts).
export function createPool(url: string, max = 20): pg.Pool {
  const pool = new OrgScopedPool({
    connectionString: url,
    max,
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    // No statement or open transaction may hold a connection without bound.
    statement_timeout: 30_000,
    idle_in_transaction_session_timeout: 30_000,
  });
  pool.on("error", (error) => console.error("idle postgres client error", error.message));
  return pool;
}

/** pg-pool's error when no connection became free within connectionTimeoutMillis. */
export const isPoolTimeout = (error: unknown) =>
  error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message);
