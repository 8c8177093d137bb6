// One run, or 404 RUN_NOT_FOUND: the first check of every run operation.
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { findRun, type RunRecord } from "../../stores/runs.ts";

export async function getRun(deps: Pick<Deps, "pool" | "views" | "params">, id: number): Promise<RunRecord> {
  const run = await findRun(deps, id);
  if (!run) throw apiError("RUN_NOT_FOUND", `run ${id} does not exist`);
  return run;
}
