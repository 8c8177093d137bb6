// The runs an agent claimed (GET /api/runs?agentId=: those it holds now and those it lost or failed), newest first.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { reader } from "../reader.ts";
import { Pager } from "./Pager.tsx";
import { RunsTable } from "./RunsTable.tsx";
import { ErrorNote, Loading } from "./Status.tsx";

const PAGE_SIZE = 10;

export function AgentRuns({ agentId }: { agentId: number }) {
  const [page, setPage] = useState(1);
  const runs = useQuery({
    queryKey: ["agent-runs", agentId, page],
    queryFn: () => reader.runs.list({ agentId, page, limit: PAGE_SIZE }),
  });
  return (
    <section aria-labelledby="agent-runs">
      <h2 id="agent-runs">Runs</h2>
      {runs.isPending ? <Loading what="the agent's runs" /> : null}
      {runs.error ? <ErrorNote error={runs.error} /> : null}
      {runs.data && runs.data.runs.length === 0 ? <p className="muted">No run claimed yet.</p> : null}
      {runs.data && runs.data.runs.length > 0 ? (
        <RunsTable runs={runs.data.runs} caption={`${runs.data.pagination.total} runs claimed, newest first`} />
      ) : null}
      {runs.data ? <Pager page={page} totalPages={runs.data.pagination.totalPages} onPage={setPage} /> : null}
    </section>
  );
}
