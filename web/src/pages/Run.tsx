// A run: what was asked, its money, who took it, and its timeline from the indexed escrow events.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { lazy, Suspense } from "react";
import { ErrorNote, Loading } from "../components/Status.tsx";
import { TxHash } from "../components/TxHash.tsx";
import { dateTime, shortAddress, stateLabel, usdc } from "../format.ts";
import { reader } from "../reader.ts";
import { useWallet } from "../wallet/state.tsx";

// The poster's actions sign with the full client: loaded only for the run's poster with a wallet connected.
const RunActions = lazy(() => import("./poster/RunActions.tsx").then((m) => ({ default: m.RunActions })));

/** States a run leaves on its own (by a person or a job): the page keeps polling while the run is in one. */
const MOVING = new Set(["OPEN", "CLAIMED", "IN_PROGRESS", "SUBMITTED", "REVISION_REQUESTED", "DISPUTED", "DRAFT"]);

export function RunPage() {
  const { wallet } = useWallet();
  const { runId } = useParams({ from: "/runs/$runId" });
  const id = Number(runId);
  const run = useQuery({
    queryKey: ["run", id],
    queryFn: () => reader.runs.get(id),
    refetchInterval: (q) => (q.state.data && MOVING.has(q.state.data.state) ? 5_000 : false),
  });
  const events = useQuery({
    queryKey: ["run-events", id, run.data?.state],
    queryFn: () => reader.runs.events(id),
    enabled: run.isSuccess,
  });
  if (!Number.isSafeInteger(id) || id < 0) return <ErrorNote error={new Error(`"${runId}" is not a run number`)} />;
  if (run.isPending) return <Loading what="the run" />;
  if (!run.data) return <ErrorNote error={run.error} />;
  const r = run.data;
  return (
    <>
      <h1>{r.title || `Run #${r.bountyId}`}</h1>
      <p>
        <span className="badge">{stateLabel(r.state)}</span> · run #{r.bountyId}
        {r.onchainRunId ? ` · escrow run ${r.onchainRunId}` : " · not funded yet"}
      </p>
      {r.description ? <p className="prewrap">{r.description}</p> : null}
      <dl className="facts-grid">
        <dt>Reward</dt>
        <dd>{usdc(r.reward)}</dd>
        <dt>Platform fee</dt>
        <dd>{usdc(r.fee)}</dd>
        <dt>Deadline</dt>
        <dd>{dateTime(r.deadline)}</dd>
        <dt>Poster</dt>
        <dd>
          <code title={r.posterAddress}>{shortAddress(r.posterAddress)}</code>
        </dd>
        <dt>Agent</dt>
        <dd>
          {r.claimedBy === null ? (
            "not claimed"
          ) : (
            <Link to="/agents/$agentId" params={{ agentId: String(r.claimedBy) }}>
              agent #{r.claimedBy}
            </Link>
          )}
        </dd>
        <dt>Revisions</dt>
        <dd>
          {r.revisions} of {r.maxRevisions}
        </dd>
        <dt>Cover required</dt>
        <dd>{r.requiredCoverage === "0" ? "none" : usdc(r.requiredCoverage)}</dd>
        <dt>Funding transaction</dt>
        <dd>
          <TxHash hash={r.fundingTx} />
        </dd>
        {r.deliverableUri ? (
          <>
            <dt>Deliverable</dt>
            <dd>
              <a href={r.deliverableUri.replace(/^ipfs:\/\//, "/ipfs/")}>{r.deliverableUri}</a>
            </dd>
          </>
        ) : null}
      </dl>
      {wallet && wallet.address.toLowerCase() === r.posterAddress.toLowerCase() ? (
        <Suspense fallback={<Loading what="your actions" />}>
          <RunActions run={r} />
        </Suspense>
      ) : null}
      <section aria-labelledby="timeline">
        <h2 id="timeline">Timeline</h2>
        {events.error ? <ErrorNote error={events.error} /> : null}
        <ol className="timeline">
          {(events.data?.events ?? []).map((e) => (
            <li key={`${e.txHash ?? "draft"}-${e.kind}-${e.timestamp}`}>
              <strong>{stateLabel(e.kind)}</strong> → {stateLabel(e.state)} · {dateTime(e.timestamp)}
              {e.amount ? ` · ${usdc(e.amount)}` : ""}
              {e.actor ? (
                <>
                  {" "}
                  · by <code title={e.actor}>{shortAddress(e.actor)}</code>
                </>
              ) : null}{" "}
              · tx <TxHash hash={e.txHash} />
              {e.note ? <p className="prewrap">“{e.note}”</p> : null}
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
