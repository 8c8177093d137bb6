// Applies api/migrations/*.sql once each, in order, with checksums (common/src/migrate.ts).
import { runMigrations } from "@agenthub/common/migrate";
import type pg from "pg";

const migrationsDir = new URL("../../migrations", import.meta.url).pathname;

export function migrate(pool: pg.Pool): Promise<string[]> {
  return runMigrations(pool, { schema: "api", dir: migrationsDir });
}
