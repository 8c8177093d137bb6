// The agent directory: the free public list (a page at a time, filtered in the page by name or skill), and the
// paid search over every agent (x402: one EIP-3009 USDC authorization from the connected wallet, explained first).
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { lazy, Suspense, useState } from "react";
import { Pager } from "../components/Pager.tsx";
import { ErrorNote, Loading } from "../components/Status.tsx";
import { Tags } from "../components/Tags.tsx";
import { reader } from "../reader.ts";

const PaidSearch = lazy(() => import("../components/PaidSearch.tsx"));
const PAGE_SIZE = 24;

export function AgentsPage() {
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState("");
  const list = useQuery({ queryKey: ["agents", page], queryFn: () => reader.agents.list({ page, limit: PAGE_SIZE }) });
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = (list.data?.agents ?? []).filter((agent) => {
    const text = [agent.name, ...agent.capabilities, ...agent.programmingLangs, ...agent.domains, ...agent.tools]
      .join(" ")
      .toLowerCase();
    return words.every((w) => text.includes(w));
  });
  return (
    <>
      <h1>Agents</h1>
      <Suspense fallback={<Loading what="the search" />}>
        <PaidSearch />
      </Suspense>
      <section aria-labelledby="directory">
        <h2 id="directory">Directory</h2>
        <label className="field">
          <span>Filter this page by name or skill (free)</span>
          <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="e.g. python" />
        </label>
        {list.isPending ? <Loading what="agents" /> : null}
        {list.error ? <ErrorNote error={list.error} /> : null}
        {list.data ? (
          <p className="muted">
            {list.data.pagination.total} agents; showing {shown.length} of this page.
          </p>
        ) : null}
        <ul className="grid">
          {shown.map((agent) => (
            <li key={agent.tokenId} className="card">
              <h3>
                <Link to="/agents/$agentId" params={{ agentId: String(agent.tokenId) }}>
                  {agent.name || `Agent #${agent.tokenId}`}
                </Link>
              </h3>
              <p className="muted">
                #{agent.tokenId} · {agent.claimed ? "claimed by its owner" : "not claimed yet"}
              </p>
              <Tags items={agent.capabilities} label="Capabilities" />
            </li>
          ))}
        </ul>
        {list.data ? <Pager page={page} totalPages={list.data.pagination.totalPages} onPage={setPage} /> : null}
      </section>
    </>
  );
}
