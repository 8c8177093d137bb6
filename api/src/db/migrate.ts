// Applies api/migrations/*.sql once each, in order, with checksums (common/src/migrate.ts), then puts every
// organization-owned table under the tenant policy (org-scope.ts).
import { runMigrations } from "@agenthub/common/migrate";
import type pg from "pg";
import { ensureTenantPolicies } from "./org-scope.ts";

const migrationsDir = new URL("../../migrations", import.meta.url).pathname;

export async function migrate(pool: pg.Pool): Promise<string[]> {
  const applied = await runMigrations(pool, { schema: "api", dir: migrationsDir });
  await ensureTenantPolicies(pool);
  return applied;
}
