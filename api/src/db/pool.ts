import type pg from "pg";
import { OrgScopedPool } from "./org-scope.ts";

/** Bounds of every request's database work (docs/decisions.md, "Database pool and wait limits"). */
export const STATEMENT_TIMEOUT_MS = 30_000;
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;

// Postgres numerics and int8 stay strings: money never becomes a JS number. Connections taken while a request with
// an organization key runs are scoped to that organization (org-scope.ts). A request that cannot get a connection
// within `connectTimeoutMs` is answered 503 SERVICE_BUSY (app.ts), never left waiting for good.
export function createPool(url: string, max = 20, connectTimeoutMs = 10_000): pg.Pool {
  const pool = new OrgScopedPool({
    connectionString: url,
    max,
    connectionTimeoutMillis: connectTimeoutMs,
    // No statement or open transaction may hold a connection without bound.
    statement_timeout: STATEMENT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
  });
  pool.on("error", (error) => console.error("idle postgres client error", error.message));
  return pool;
}

/** pg-pool's error when no connection became free within connectionTimeoutMillis. */
export const isPoolTimeout = (error: unknown) =>
  error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message);
