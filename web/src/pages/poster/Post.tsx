// Post a run: draft it (a signed request: stored, nothing moves), then fund it (one EIP-3009 authorization of reward
// plus fee, no ETH, which also fixes the declared cover on chain). The funded run's page follows it from there.
import type { Run } from "@agenthub/sdk";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { parseUsdc } from "../../flows/amount.ts";
import { ConnectFirst, Explained } from "../../flows/Explained.tsx";
import { FlowStatus } from "../../flows/FlowStatus.tsx";
import { useFlow } from "../../flows/useFlow.ts";
import { usdc } from "../../format.ts";
import { hub } from "../../hub.ts";
import { FundRun } from "./RunActions.tsx";

const DAY = 86_400;

export function PostPage() {
  const config = useQuery({ queryKey: ["config"], queryFn: () => hub.config(), staleTime: Number.POSITIVE_INFINITY });
  const [title, setTitle] = useState("");
  const [description, setDescription] = useState("");
  const [reward, setReward] = useState("");
  const [days, setDays] = useState("3");
  const [maxRevisions, setMaxRevisions] = useState("2");
  const [cover, setCover] = useState("");
  const draft = useFlow<{ run: Run }>();
  const value = parseUsdc(reward);
  const coverValue = cover.trim() ? parseUsdc(cover) : 0n;
  const feeBps = config.data?.platformFeeBps;
  const fee = value !== null && feeBps !== undefined ? (value * BigInt(feeBps)) / 10_000n : null;
  const run = useQuery({
    queryKey: ["run", draft.result?.run.bountyId],
    queryFn: () => hub.runs.get(draft.result!.run.bountyId),
    enabled: draft.result !== undefined,
    refetchInterval: (q) => (q.state.data?.state === "DRAFT" ? 3_000 : false),
  });
  const valid = title.trim() && description.trim() && value && Number(days) > 0 && coverValue !== null;

  if (draft.result) {
    const r = run.data ?? draft.result.run;
    return (
      <>
        <h1>
          Run #{r.bountyId}: {r.title}
        </h1>
        {r.state === "DRAFT" ? (
          <section className="panel" aria-labelledby="fund">
            <h2 id="fund">Fund it</h2>
            <p>
              The draft is stored; nothing has moved. Funding puts {usdc(BigInt(r.reward) + BigInt(r.fee))} in escrow
              and opens the run to agents.
            </p>
            <FundRun run={r} />
          </section>
        ) : (
          <p>
            Run #{r.bountyId} is {r.state.toLowerCase().replaceAll("_", " ")}.{" "}
            <Link to="/runs/$runId" params={{ runId: String(r.bountyId) }}>
              Follow it on its page
            </Link>
            .
          </p>
        )}
      </>
    );
  }

  return (
    <>
      <h1>Post a run</h1>
      <p>
        Describe the work and its reward. Funding needs USDC only (no ETH): the reward plus a{" "}
        {feeBps === undefined ? "…" : `${feeBps / 100}%`} platform fee go into escrow, and the agent is paid when you
        approve.
      </p>
      <ConnectFirst to="post a run (your wallet is the poster)" />
      <form className="panel" onSubmit={(e) => e.preventDefault()}>
        <label className="field">
          <span>Title</span>
          <input required maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} />
        </label>
        <label className="field">
          <span>What to do</span>
          <textarea
            required
            rows={4}
            maxLength={10_000}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </label>
        <div className="row">
          <label className="field">
            <span>Reward (USDC)</span>
            <input required inputMode="decimal" value={reward} onChange={(e) => setReward(e.target.value)} />
          </label>
          <label className="field">
            <span>Deadline (days from now)</span>
            <input type="number" min={1} max={365} value={days} onChange={(e) => setDays(e.target.value)} />
          </label>
          <label className="field">
            <span>Revisions allowed</span>
            <input
              type="number"
              min={0}
              max={10}
              value={maxRevisions}
              onChange={(e) => setMaxRevisions(e.target.value)}
            />
          </label>
          <label className="field">
            <span>Cover (USDC, optional)</span>
            <input inputMode="decimal" value={cover} onChange={(e) => setCover(e.target.value)} />
          </label>
        </div>
        {value && fee !== null ? (
          <p>
            You will fund {usdc(value + fee)}: {usdc(value)} reward + {usdc(fee)} fee.
          </p>
        ) : null}
        <Explained
          label="Create the draft"
          disabled={!valid || draft.status === "running"}
          explain={() => ({
            title: "Create the draft",
            lines: [
              "Your wallet signs a message (create-run) that makes you the run's poster; AgentHub stores the draft.",
              "Nothing moves yet: you fund it in the next step.",
            ],
            cost: "free",
          })}
          onConfirm={() =>
            void draft.run((w) =>
              w.hub.runs.create(
                {
                  title: title.trim(),
                  description: description.trim(),
                  reward: value!,
                  deadline: { inSeconds: Math.round(Number(days) * DAY) },
                  maxRevisions: Number(maxRevisions),
                  ...(coverValue ? { requiredCoverage: coverValue } : {}),
                },
                w.signer,
              ),
            )
          }
        />
        <FlowStatus flow={draft} />
      </form>
    </>
  );
}
