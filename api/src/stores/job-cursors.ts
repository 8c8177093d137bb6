// Where a polling job left off (api.job_cursor): one JSON value per job name.
import { eq, sql } from "drizzle-orm";
import type { Deps } from "../context.ts";
import { jobCursor } from "../db/schema/index.ts";

export async function readCursor<T>(deps: Pick<Deps, "db">, name: string): Promise<T | undefined> {
  const [row] = await deps.db.select({ value: jobCursor.value }).from(jobCursor).where(eq(jobCursor.name, name));
  return row?.value as T | undefined;
}

export async function writeCursor(deps: Pick<Deps, "db">, name: string, value: unknown): Promise<void> {
  await deps.db
    .insert(jobCursor)
    .values({ name, value, updatedAt: sql`now()` })
    .onConflictDoUpdate({ target: jobCursor.name, set: { value, updatedAt: sql`now()` } });
}
