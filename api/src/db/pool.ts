import pg from "pg";

// Postgres numerics and int8 stay strings: money never becomes a JS number.
export function createPool(url: string, max = 20): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on("error", (error) => console.error("idle postgres client error", error.message));
  return pool;
}
