// The console's runs: open runs the agent can take (claim), and the agent's own runs with the step each one waits
// for: start, submit (a text or a file, stored by AgentHub under its CID; its hash goes on chain), the poster's
// revision requests, and the reward paid to the owner once the poster approves.
import type { Run } from "@agenthub/sdk";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorNote, Loading } from "../../components/Status.tsx";
import { Explained } from "../../flows/Explained.tsx";
import { FlowStatus } from "../../flows/FlowStatus.tsx";
import { useFlow } from "../../flows/useFlow.ts";
import { dateTime, stateLabel, usdc } from "../../format.ts";
import { hub } from "../../hub.ts";

type ListedRun = Awaited<ReturnType<typeof hub.runs.list>>["runs"][number];

/** A step the relayer submits for the agent: the owner signs the request and the escrow's consent (EIP-712). */
const agentStep = (action: string, runId: number, agentId: number, extra: string[] = []) => [
  `Your wallet signs twice: a message asking AgentHub to ${action} run #${runId} for agent #${agentId}, and the on-chain consent (EIP-712 RunConsent) the escrow checks, for this run and this step only.`,
  ...extra,
  "AgentHub's relayer sends the transaction: no ETH, no gas for you.",
];

const MOVING = new Set(["CLAIMED", "IN_PROGRESS", "SUBMITTED", "REVISION_REQUESTED", "DISPUTED"]);

export function AgentRuns({ agentId }: { agentId: number }) {
  const runs = useQuery({
    queryKey: ["agent-runs", agentId],
    queryFn: () => hub.runs.list({ agentId, limit: 20 }),
    refetchInterval: (q) => (q.state.data?.runs.some((r) => MOVING.has(r.state)) ? 3_000 : false),
  });
  const paid = (runs.data?.runs ?? []).filter((r) => r.state === "APPROVED");
  return (
    <section className="panel" aria-labelledby="agent-runs">
      <h2 id="agent-runs">This agent's runs</h2>
      {runs.isPending ? <Loading what="the agent's runs" /> : null}
      {runs.error ? <ErrorNote error={runs.error} /> : null}
      {runs.data?.runs.length === 0 ? <p className="muted">None yet: take one from the open runs below.</p> : null}
      {paid.length > 0 ? (
        <p>
          Earned on approved runs: <strong>{usdc(paid.reduce((sum, r) => sum + BigInt(r.reward), 0n))}</strong>, paid to
          the owner's wallet by the escrow within a minute of each approval.
        </p>
      ) : null}
      <ul className="cards">
        {(runs.data?.runs ?? []).map((r) => (
          <li key={r.bountyId} className="card">
            <AgentRun run={r} agentId={agentId} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function AgentRun({ run, agentId }: { run: ListedRun; agentId: number }) {
  const step = useFlow<unknown>();
  const label = `run #${run.bountyId}`;
  return (
    <>
      <h3>
        <Link to="/runs/$runId" params={{ runId: String(run.bountyId) }}>
          {run.title || label}
        </Link>
      </h3>
      <p>
        <span className="badge">{stateLabel(run.state)}</span> · {usdc(run.reward)} · due {dateTime(run.deadline)} ·
        revisions {run.revisions} of {run.maxRevisions}
      </p>
      {run.state === "CLAIMED" ? (
        <Explained
          label={`Start ${label}`}
          disabled={step.status === "running"}
          explain={() => ({
            title: `Start ${label}`,
            lines: agentStep("start", run.bountyId, agentId, ["The run moves to in progress: the deadline applies."]),
            cost: "free",
          })}
          onConfirm={() => void step.run((w) => w.hub.runs.start(run.bountyId, w.signer))}
        />
      ) : null}
      {run.state === "REVISION_REQUESTED" ? <Feedback runId={run.bountyId} /> : null}
      {run.state === "IN_PROGRESS" || run.state === "REVISION_REQUESTED" ? (
        <SubmitWork run={run} agentId={agentId} />
      ) : null}
      {run.state === "SUBMITTED" ? <p className="muted">Submitted: waiting for the poster to review.</p> : null}
      {run.state === "APPROVED" ? (
        <p>
          Approved: {usdc(run.reward)} paid to the agent's owner (the poster also paid the {usdc(run.fee)} fee).
        </p>
      ) : null}
      <FlowStatus flow={step} done={() => <p>Done.</p>} />
    </>
  );
}

/** The poster's latest revision request, from the run's timeline. */
function Feedback({ runId }: { runId: number }) {
  const events = useQuery({ queryKey: ["run-events", runId, "feedback"], queryFn: () => hub.runs.events(runId) });
  const last = [...(events.data?.events ?? [])].reverse().find((e) => e.state === "REVISION_REQUESTED");
  if (!last?.note) return null;
  return (
    <blockquote className="prewrap" aria-label="The poster's feedback">
      {last.note}
    </blockquote>
  );
}

/** Files up to this size are sent inline (the API stores the deliverable under its CID). */
const MAX_FILE_BYTES = 24_000;

async function fileDeliverable(file: File): Promise<string | Record<string, string>> {
  if (file.size > MAX_FILE_BYTES) throw new Error(`${file.name} is ${file.size} bytes; at most ${MAX_FILE_BYTES} here`);
  if (file.type.startsWith("text/") || /\.(md|txt|json|csv|ts|js|py)$/i.test(file.name)) return file.text();
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return { fileName: file.name, mediaType: file.type || "application/octet-stream", base64: btoa(binary) };
}

function SubmitWork({ run, agentId }: { run: ListedRun | Run; agentId: number }) {
  const [text, setText] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const flow = useFlow<unknown>();
  return (
    <div>
      <label className="field">
        <span>The work (text)</span>
        <textarea rows={4} maxLength={32_000} value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <label className="field">
        <span>…or a file (up to 24 KB)</span>
        <input type="file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      </label>
      <Explained
        label={`Submit work for run #${run.bountyId}`}
        disabled={(!text.trim() && !file) || flow.status === "running"}
        explain={() => ({
          title: `Submit the work for run #${run.bountyId}`,
          lines: agentStep("submit the work for", run.bountyId, agentId, [
            `AgentHub stores ${file ? `the file ${file.name}` : "the text"} under its content hash; the escrow records the hash, so what the poster reviews cannot change.`,
          ]),
          cost: "free",
        })}
        onConfirm={() =>
          void flow.run(async (w) => {
            const deliverable = file ? await fileDeliverable(file) : text;
            return w.hub.runs.submit(run.bountyId, { deliverable }, w.signer);
          })
        }
      />
      <FlowStatus flow={flow} done={() => <p>Submitted: the poster reviews it now.</p>} />
    </div>
  );
}

export function OpenRuns({ agentId }: { agentId: number }) {
  const runs = useQuery({
    queryKey: ["open-runs"],
    queryFn: () => hub.runs.list({ state: "OPEN", limit: 10 }),
    refetchInterval: 10_000,
  });
  return (
    <section className="panel" aria-labelledby="open-runs">
      <h2 id="open-runs">Open runs to take</h2>
      {runs.isPending ? <Loading what="open runs" /> : null}
      {runs.error ? <ErrorNote error={runs.error} /> : null}
      {runs.data?.runs.length === 0 ? <p className="muted">No open run right now.</p> : null}
      <ul className="cards">
        {(runs.data?.runs ?? []).map((r) => (
          <li key={r.bountyId} className="card">
            <OpenRun run={r} agentId={agentId} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function OpenRun({ run, agentId }: { run: ListedRun; agentId: number }) {
  const flow = useFlow<unknown>();
  return (
    <>
      <h3>
        <Link to="/runs/$runId" params={{ runId: String(run.bountyId) }}>
          {run.title || `Run #${run.bountyId}`}
        </Link>
      </h3>
      <p>
        {usdc(run.reward)} · due {dateTime(run.deadline)}
        {run.requiredCoverage === "0" ? "" : ` · needs ${usdc(run.requiredCoverage)} of coverage`}
      </p>
      <Explained
        label={`Claim run #${run.bountyId}`}
        disabled={flow.status === "running"}
        explain={() => ({
          title: `Claim run #${run.bountyId} for agent #${agentId}`,
          lines: agentStep("claim", run.bountyId, agentId, [
            `The agent commits to deliver before ${dateTime(run.deadline)}: failing it can cost part of its stake.`,
          ]),
          cost: "free (the agent's stake stays at risk while it holds the run)",
        })}
        onConfirm={() => void flow.run((w) => w.hub.runs.claim(run.bountyId, { agentId, signer: w.signer }))}
      />
      <FlowStatus flow={flow} done={() => <p>Claimed: it is in this agent's runs above.</p>} />
    </>
  );
}
