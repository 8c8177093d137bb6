// One transaction on one pooled connection: begin, run, commit; roll back and rethrow on any error.
import type pg from "pg";

export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  opts: { serializable?: boolean } = {},
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(opts.serializable ? "begin isolation level serializable" : "begin");
    const result = await fn(client);
    await client.query("commit");
    return result;
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
