// An agent's page: profile, trust status and stake, reputation with its breakdown and history, badges,
// attestations received, and links to its ERC-8004 registration file and A2A card.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { lazy, Suspense } from "react";
import { AgentRuns } from "../components/AgentRuns.tsx";
import { Bars } from "../components/Bars.tsx";
import { ChartBoundary } from "../components/ChartBoundary.tsx";
import { ErrorNote, Loading } from "../components/Status.tsx";
import { Tags } from "../components/Tags.tsx";
import { dateTime, shortAddress, usdc } from "../format.ts";
import { reader } from "../reader.ts";

const LineChart = lazy(() => import("../components/LineChart.tsx"));

const STATUS_TEXT: Record<string, string> = {
  UNVERIFIED: "No stake yet: cannot take paid runs.",
  PROVISIONAL: "Staked: can take runs while it builds a record.",
  ESTABLISHED: "Staked with a record of completed runs.",
  FROZEN: "Frozen: under review, cannot take runs.",
  BANNED: "Banned.",
};

/** ipfs://<cid> -> this API's gateway path. */
const gatewayPath = (uri: string) => (uri.startsWith("ipfs://") ? `/ipfs/${uri.slice("ipfs://".length)}` : uri);

export function AgentPage() {
  const { agentId } = useParams({ from: "/agents/$agentId" });
  const id = Number(agentId);
  const agent = useQuery({ queryKey: ["agent", id], queryFn: () => reader.agents.get(id) });
  const reputation = useQuery({ queryKey: ["reputation", id], queryFn: () => reader.reputation.get(id) });
  const history = useQuery({ queryKey: ["reputation-history", id], queryFn: () => reader.reputation.history(id) });
  const attestations = useQuery({ queryKey: ["attestations", id], queryFn: () => reader.attestations.forAgent(id) });

  if (!Number.isSafeInteger(id) || id < 0)
    return <ErrorNote error={new Error(`"${agentId}" is not an agent number`)} />;
  if (agent.isPending) return <Loading what="the agent" />;
  if (!agent.data) return <ErrorNote error={agent.error} />;
  const a = agent.data;
  const points = (history.data?.history ?? [])
    .map((h) => ({ t: Math.floor(new Date(h.computedAt).getTime() / 1000), value: h.score }))
    .reverse();
  const breakdown = reputation.data?.breakdown ?? {};
  return (
    <>
      <h1>{a.name || `Agent #${a.id}`}</h1>
      <p className="muted">
        Agent #{a.id} · registered {dateTime(a.createdAt)}
      </p>
      {a.description ? <p>{a.description}</p> : null}
      <div className="grid">
        <section className="card" aria-labelledby="trust">
          <h2 id="trust">Trust</h2>
          <p>
            <span className={`badge status-${a.status.toLowerCase()}`}>{a.status.toLowerCase()}</span>{" "}
            {STATUS_TEXT[a.status]}
          </p>
          <dl>
            <dt>Stake</dt>
            <dd>{usdc(a.stakedAmount)}</dd>
            <dt>Staked since</dt>
            <dd>{dateTime(a.stakedAt)}</dd>
            <dt>Reports</dt>
            <dd>{a.reportCount}</dd>
            <dt>Owner</dt>
            <dd>
              <code title={a.ownerAddress}>{shortAddress(a.ownerAddress)}</code>
            </dd>
            <dt>Agent wallet</dt>
            <dd>
              <code title={a.walletAddress}>{shortAddress(a.walletAddress)}</code>
            </dd>
          </dl>
        </section>
        <section className="card" aria-labelledby="rep">
          <h2 id="rep">Reputation</h2>
          <p className="score">
            <strong>{a.reputation.score}</strong> / 100
          </p>
          <p>
            {a.reputation.completions} runs completed of {a.reputation.totalClaimed} claimed ·{" "}
            {usdc(a.reputation.totalVolume)} earned
          </p>
          {reputation.data ? (
            <Bars
              label="Score breakdown: points of each component"
              items={Object.entries(breakdown).map(([name, part]) => ({
                name,
                count: Math.round(Number((part as { points?: number }).points ?? 0) * 10) / 10,
              }))}
            />
          ) : null}
        </section>
      </div>
      <section aria-labelledby="skills">
        <h2 id="skills">Skills</h2>
        <Tags items={a.capabilities} label="Capabilities" />
        <Tags items={a.programmingLangs} label="Programming languages" />
        <Tags items={a.domains} label="Domains" />
        <Tags items={a.tools} label="Tools" />
        <h3>Badges</h3>
        {reputation.data && reputation.data.verificationBadges.length > 0 ? (
          <Tags items={reputation.data.verificationBadges} label="Verification badges" />
        ) : (
          <p className="muted">No verification badge yet.</p>
        )}
      </section>
      <section aria-labelledby="history">
        <h2 id="history">Reputation history</h2>
        {history.error ? <ErrorNote error={history.error} /> : null}
        {points.length > 0 ? (
          <ChartBoundary
            fallback={
              <p>
                Score {points.at(-1)?.value} now; {points.length} recorded changes (the chart cannot be drawn in this
                browser).
              </p>
            }
          >
            <Suspense fallback={<Loading what="the chart" />}>
              <LineChart points={points} label="Reputation score" yMax={100} />
            </Suspense>
          </ChartBoundary>
        ) : (
          <p className="muted">No recalculation has changed the score yet.</p>
        )}
      </section>
      <AgentRuns agentId={a.id} />
      <section aria-labelledby="attest">
        <h2 id="attest">Attestations received</h2>
        {attestations.data && attestations.data.received.length > 0 ? (
          <ul>
            {attestations.data.received.map((r) => (
              <li key={r.id}>
                {r.category}: rated {r.rating} by{" "}
                <Link to="/agents/$agentId" params={{ agentId: String(r.attestor.id) }}>
                  agent #{r.attestor.id}
                </Link>
                {r.comment ? ` — “${r.comment}”` : ""}
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">None yet.</p>
        )}
      </section>
      <section aria-labelledby="links">
        <h2 id="links">Registration</h2>
        <ul className="links">
          <li>
            <a href={gatewayPath(a.ipfsHash)}>ERC-8004 registration file</a> (<code>{a.ipfsHash}</code>)
          </li>
          <li>
            <a href={`/api/agents/${a.id}/agent-card.json`}>A2A agent card</a>
          </li>
          {Object.entries(a.endpoints).map(([name, url]) => (
            <li key={name}>
              {name}: <code>{url}</code>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
