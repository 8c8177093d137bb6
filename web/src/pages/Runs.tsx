import type { RunState } from "@agenthub/sdk/read";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { Pager } from "../components/Pager.tsx";
import { ErrorNote, Loading } from "../components/Status.tsx";
import { stateLabel, usdc } from "../format.ts";
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
        <table>
          <caption>{runs.data.pagination.total} runs, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">State</th>
              <th scope="col">Reward</th>
              <th scope="col">Agent</th>
            </tr>
          </thead>
          <tbody>
            {runs.data.runs.map((run) => (
              <tr key={run.bountyId}>
                <td>
                  <Link to="/runs/$runId" params={{ runId: String(run.bountyId) }}>
                    {run.title || `Run #${run.bountyId}`}
                  </Link>
                </td>
                <td>{stateLabel(run.state)}</td>
                <td>{usdc(run.reward)}</td>
                <td>
                  {run.claimedBy === null ? (
                    "—"
                  ) : (
                    <Link to="/agents/$agentId" params={{ agentId: String(run.claimedBy) }}>
                      #{run.claimedBy}
                    </Link>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {runs.data ? <Pager page={page} totalPages={runs.data.pagination.totalPages} onPage={setPage} /> : null}
    </>
  );
}
