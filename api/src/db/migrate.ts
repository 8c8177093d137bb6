// Applies api/migrations/*.sql in order, once each, under an advisory lock (several API processes may start together).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type pg from "pg";

const migrationsDir = new URL("../../migrations", import.meta.url).pathname;

export async function migrate(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query("select pg_advisory_lock(hashtext('agenthub.api.migrate'))");
    await client.query("create schema if not exists api");
    await client.query(
      "create table if not exists api.migration (name text primary key, applied_at timestamptz not null default now())",
    );
    const done = new Set(
      (await client.query<{ name: string }>("select name from api.migration")).rows.map((r) => r.name),
    );
    for (const file of readdirSync(migrationsDir)
      .filter((f) => f.endsWith(".sql"))
      .sort()) {
      if (done.has(file)) continue;
      await client.query("begin");
      try {
        await client.query(readFileSync(join(migrationsDir, file), "utf8"));
        await client.query("insert into api.migration (name) values ($1)", [file]);
        await client.query("commit");
        applied.push(file);
      } catch (error) {
        await client.query("rollback");
        throw new Error(`migration ${file} failed: ${(error as Error).message}`);
      }
    }
  } finally {
    await client.query("select pg_advisory_unlock(hashtext('agenthub.api.migrate'))").catch(() => {});
    client.release();
  }
  return applied;
}
