// Numbered SQL migrations for every package that owns tables (API, relayer): each file in `dir` is applied once, in
// file-name order, in its own transaction, under an advisory lock (several processes may start together). The
// SHA-256 of every applied file is recorded; an applied migration whose file has changed since is refused, because
// the database would no longer match what the code expects (add a new migration instead).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The part of a pg.PoolClient this needs (common has no pg dependency). */
export interface MigrationClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  release(): void;
}

export interface MigrationOptions {
  /** Schema that holds the package's tables and its `migration` ledger. */
  schema: string;
  /** Folder of `NNN_name.sql` files. */
  dir: string;
}

export class MigrationError extends Error {}

/** Checksum of a migration file; line endings are normalized so a checkout with CRLF is the same file. */
export function migrationChecksum(sql: string): string {
  return createHash("sha256").update(sql.replace(/\r\n/g, "\n")).digest("hex");
}

/** Applies the pending migrations; returns the names applied by this call. */
export async function runMigrations(
  pool: { connect(): Promise<MigrationClient> },
  { schema, dir }: MigrationOptions,
): Promise<string[]> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new MigrationError(`invalid schema name ${schema}`);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name), "utf8");
      return { name, sql, checksum: migrationChecksum(sql) };
    });
  const ledger = `${schema}.migration`;
  const lock = `agenthub.${schema}.migrate`;
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query("select pg_advisory_lock(hashtext($1))", [lock]);
    await client.query(`create schema if not exists ${schema}`);
    await client.query(
      `create table if not exists ${ledger} (name text primary key, applied_at timestamptz not null default now())`,
    );
    // Ledgers written before checksums existed get theirs on first sight (nothing older to compare with).
    await client.query(`alter table ${ledger} add column if not exists checksum text`);
    const rows = (await client.query(`select name, checksum from ${ledger}`)).rows as {
      name: string;
      checksum: string | null;
    }[];
    const done = new Map(rows.map((r) => [r.name, r.checksum]));
    for (const file of files) {
      if (!done.has(file.name)) continue;
      const recorded = done.get(file.name);
      if (recorded === null) {
        await client.query(`update ${ledger} set checksum = $2 where name = $1`, [file.name, file.checksum]);
      } else if (recorded !== file.checksum) {
        throw new MigrationError(
          `migration ${schema}/${file.name} was changed after it was applied (checksum ${recorded?.slice(0, 12)} ` +
            `in the database, ${file.checksum.slice(0, 12)} on disk): restore it and add a new migration instead`,
        );
      }
    }
    for (const file of files) {
      if (done.has(file.name)) continue;
      await client.query("begin");
      try {
        await client.query(file.sql);
        await client.query(`insert into ${ledger} (name, checksum) values ($1, $2)`, [file.name, file.checksum]);
        await client.query("commit");
        applied.push(file.name);
      } catch (error) {
        await client.query("rollback");
        throw new MigrationError(`migration ${schema}/${file.name} failed: ${(error as Error).message}`);
      }
    }
  } finally {
    await client.query("select pg_advisory_unlock(hashtext($1))", [lock]).catch(() => {});
    client.release();
  }
  return applied;
}
