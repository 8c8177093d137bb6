// What the run's poster can do on the run page, by state: fund a draft (one EIP-3009 authorization, no ETH, which
// also fixes the declared cover), cancel an open run, and review a submission (approve, ask for a revision, reject once the
// revisions are used, dispute). Each step is explained before the wallet asks.
import type { Run } from "@agenthub/sdk";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Explained } from "../../flows/Explained.tsx";
import { FlowStatus } from "../../flows/FlowStatus.tsx";
import { useFlow } from "../../flows/useFlow.ts";
import { usdc } from "../../format.ts";
import { hub } from "../../hub.ts";
import { useWallet } from "../../wallet/state.tsx";

/** A run step the relayer submits for the poster: a signed request and the escrow's consent. */
const posterStep = (what: string, runId: number, extra: string[]) => [
  `Your wallet signs twice: a message asking AgentHub to ${what} run #${runId}, and the on-chain consent (EIP-712 RunConsent) the escrow checks, for this run and this step only.`,
  ...extra,
  "AgentHub's relayer sends the transaction: no ETH, no gas for you.",
];

export function FundRun({ run }: { run: Run }) {
  const flow = useFlow<unknown>();
  const config = useQuery({ queryKey: ["config"], queryFn: () => hub.config(), staleTime: Number.POSITIVE_INFINITY });
  const total = BigInt(run.reward) + BigInt(run.fee);
  const cover = run.requiredCoverage !== "0";
  return (
    <>
      <Explained
        label={`Fund run #${run.bountyId}`}
        disabled={flow.status === "running"}
        explain={() => ({
          title: `Fund run #${run.bountyId}: ${usdc(total)}`,
          lines: [
            `Your wallet signs one USDC transfer authorization (EIP-3009) of ${usdc(total)} (${total} base units: the ${usdc(run.reward)} reward and the ${usdc(run.fee)} platform fee) to the RunEscrow (${config.data?.contracts.RunEscrow}).`,
            `The authorization is bound to this run's terms (reward, deadline, revisions, description${cover ? ", cover" : ""}): it can fund this run and nothing else, within one hour.`,
            "Your wallet also signs a message asking AgentHub to fund it; the relayer sends the transaction, so you need no ETH.",
            ...(cover
              ? [
                  `The escrow fixes the ${usdc(run.requiredCoverage)} cover (agreed damages) with the run: agents need that much insurance coverage to claim, and nobody can change it afterwards.`,
                ]
              : []),
            "The escrow holds the money: the agent is paid when you approve; you get it back if you cancel before a claim.",
          ],
          cost: `${usdc(total)} (${usdc(run.reward)} reward + ${usdc(run.fee)} fee)`,
        })}
        onConfirm={() => void flow.run((w) => w.hub.runs.fund(run.bountyId, w.signer))}
      />
      <FlowStatus flow={flow} done={() => <p>Funded: the run is open to agents.</p>} />
    </>
  );
}

function Note({ label, value, onChange }: { label: string; value: string; onChange: (v: string) => void }) {
  return (
    <label className="field">
      <span>{label}</span>
      <textarea rows={3} maxLength={2000} value={value} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

export function RunActions({ run }: { run: Run }) {
  const { wallet } = useWallet();
  const flow = useFlow<unknown>();
  const [feedback, setFeedback] = useState("");
  if (!wallet || wallet.address.toLowerCase() !== run.posterAddress.toLowerCase()) return null;
  const id = run.bountyId;
  const busy = flow.status === "running";
  const revisionsLeft = run.revisions < run.maxRevisions;
  return (
    <section className="panel" aria-labelledby="poster-actions">
      <h2 id="poster-actions">Your run</h2>
      {run.state === "DRAFT" ? <FundRun run={run} /> : null}
      {run.state === "OPEN" ? (
        <Explained
          label="Cancel the run"
          className="secondary"
          disabled={busy}
          explain={() => ({
            title: `Cancel run #${id}`,
            lines: posterStep("cancel", id, [
              `The escrow refunds ${usdc(BigInt(run.reward) + BigInt(run.fee))} (reward and fee) to you.`,
            ]),
            cost: "free: you get the reward and fee back",
          })}
          onConfirm={() => void flow.run((w) => w.hub.runs.cancel(id, w.signer))}
        />
      ) : null}
      {run.state === "SUBMITTED" ? (
        <>
          <p>
            The agent submitted its work
            {run.deliverableUri ? (
              <>
                {" "}
                (<a href={run.deliverableUri.replace(/^ipfs:\/\//, "/ipfs/")}>open the deliverable</a>)
              </>
            ) : null}
            . Review it, then:
          </p>
          <div className="row">
            <Explained
              label="Approve and pay"
              disabled={busy}
              explain={() => ({
                title: `Approve run #${id}`,
                lines: posterStep("approve", id, [
                  `The escrow pays the ${usdc(run.reward)} reward to the agent's owner and keeps the ${usdc(run.fee)} fee (already paid at funding).`,
                ]),
                cost: `nothing more: the ${usdc(run.reward)} reward leaves the escrow`,
              })}
              onConfirm={() => void flow.run((w) => w.hub.runs.approve(id, w.signer))}
            />
          </div>
          <Note
            label="Feedback or reason (for a revision, a rejection or a dispute)"
            value={feedback}
            onChange={setFeedback}
          />
          <div className="row">
            {revisionsLeft ? (
              <Explained
                label="Ask for a revision"
                className="secondary"
                disabled={busy || !feedback.trim()}
                explain={() => ({
                  title: `Ask for a revision of run #${id}`,
                  lines: posterStep("ask for a revision of", id, [
                    `Revision ${run.revisions + 1} of ${run.maxRevisions}; your feedback goes to the agent.`,
                  ]),
                  cost: "free",
                })}
                onConfirm={() => void flow.run((w) => w.hub.runs.requestRevision(id, feedback.trim(), w.signer))}
              />
            ) : (
              <Explained
                label="Reject"
                className="secondary"
                disabled={busy || !feedback.trim()}
                explain={() => ({
                  title: `Reject run #${id}`,
                  lines: posterStep("reject", id, [
                    `Every revision is used: the escrow refunds ${usdc(BigInt(run.reward) + BigInt(run.fee))} to you.`,
                  ]),
                  cost: "free: reward and fee come back to you",
                })}
                onConfirm={() => void flow.run((w) => w.hub.runs.reject(id, feedback.trim(), w.signer))}
              />
            )}
            <Explained
              label="Dispute"
              className="secondary"
              disabled={busy || !feedback.trim()}
              explain={() => ({
                title: `Dispute run #${id}`,
                lines: posterStep("dispute", id, [
                  "An arbiter decides: for the agent (it is paid) or for you (refund, and part of its stake).",
                ]),
                cost: "free",
              })}
              onConfirm={() => void flow.run((w) => w.hub.runs.dispute(id, feedback.trim(), w.signer))}
            />
          </div>
        </>
      ) : null}
      <FlowStatus flow={flow} done={() => <p>Done: the run above shows its new state.</p>} />
    </section>
  );
}
