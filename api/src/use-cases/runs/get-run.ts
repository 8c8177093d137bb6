// One run, or 404 RUN_NOT_FOUND: the first check of every run operation.
import type { Deps } from "../../context.ts";
import { errors } from "../../errors.ts";
import { cachedRead } from "../../stores/read-cache.ts";
import { findRun, type RunRecord } from "../../stores/runs.ts";

export async function getRun(deps: Pick<Deps, "pool" | "views" | "params">, id: number): Promise<RunRecord> {
  const run = await findRun(deps, id);
  if (!run) throw errors.notFound("RUN_NOT_FOUND", `run ${id} does not exist`);
  return run;
}

/**
 * The run page: `shape(run)` through the read cache, so repeated views of an unchanged run cost no query. Only for
 * answers; every operation on a run reads it with getRun (the database, never a cached copy).
 */
export async function getRunPage<T>(
  deps: Pick<Deps, "pool" | "views" | "params" | "reads">,
  id: number,
  shape: (run: RunRecord) => Promise<T>,
): Promise<T> {
  return (await cachedRead(deps, `run:${id}`, async () => shape(await getRun(deps, id))))!;
}
