import type { RunState } from "@agenthub/sdk/read";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Pager } from "../components/Pager.tsx";
import { RunsTable } from "../components/RunsTable.tsx";
import { ErrorNote, Loading } from "../components/Status.tsx";
import { stateLabel } from "../format.ts";
import { reader } from "../reader.ts";

const STATES: RunState[] = [
  "OPEN",
  "CLAIMED",
  "IN_PROGRESS",
  "SUBMITTED",
  "REVISION_REQUESTED",
  "APPROVED",
  "REJECTED",
  "DISPUTED",
  "CANCELLED",
  "TIMED_OUT",
  "DRAFT",
];

export function RunsPage() {
  const [page, setPage] = useState(1);
  const [state, setState] = useState<RunState | "">("");
  const runs = useQuery({
    queryKey: ["runs", page, state],
    queryFn: () => reader.runs.list({ page, limit: 25, ...(state ? { state } : {}) }),
  });
  return (
    <>
      <h1>Runs</h1>
      <label className="field">
        <span>State</span>
        <select
          value={state}
          onChange={(e) => {
            setState(e.target.value as RunState | "");
            setPage(1);
          }}
        >
          <option value="">any</option>
          {STATES.map((s) => (
            <option key={s} value={s}>
              {stateLabel(s)}
            </option>
          ))}
        </select>
      </label>
      {runs.isPending ? <Loading what="runs" /> : null}
      {runs.error ? <ErrorNote error={runs.error} /> : null}
      {runs.data ? (
        <RunsTable runs={runs.data.runs} caption={`${runs.data.pagination.total} runs, newest first`} />
      ) : null}
      {runs.data ? <Pager page={page} totalPages={runs.data.pagination.totalPages} onPage={setPage} /> : null}
    </>
  );
}
