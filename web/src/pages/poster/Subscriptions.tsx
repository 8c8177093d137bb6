// Subscriptions: recurring runs from plain instructions ("Summarize AI news daily for 30 days"), prepaid in USDC
// into the SubscriptionVault. Preview the cadence and cost (free), create (a USDC permit and the vault's Subscribe
// terms, no ETH), then top up, pause, resume or cancel (the unspent balance comes back, shown to the base unit).
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorNote } from "../../components/Status.tsx";
import { parseUsdc } from "../../flows/amount.ts";
import { ConnectFirst, Explained } from "../../flows/Explained.tsx";
import { AmountField } from "../../flows/Fields.tsx";
import { FlowStatus } from "../../flows/FlowStatus.tsx";
import { useFlow } from "../../flows/useFlow.ts";
import { dateTime, stateLabel, usdc } from "../../format.ts";
import { hub } from "../../hub.ts";
import { useWallet } from "../../wallet/state.tsx";

type Preview = Awaited<ReturnType<typeof hub.subscriptions.preview>>;
type Subscription = Awaited<ReturnType<typeof hub.subscriptions.get>>;
type Outcome = Awaited<ReturnType<typeof hub.subscriptions.cancel>>;

export function SubscriptionsPage() {
  const { wallet } = useWallet();
  const [instructions, setInstructions] = useState("");
  const [reward, setReward] = useState("");
  const [preview, setPreview] = useState<Preview | null>(null);
  const [previewError, setPreviewError] = useState<unknown>(null);
  const create = useFlow<unknown>();
  const value = parseUsdc(reward);
  const mine = useQuery({
    queryKey: ["subscriptions", wallet?.address],
    queryFn: () => hub.subscriptions.list({ posterAddress: wallet!.address, limit: 20 }),
    enabled: wallet !== null,
    refetchInterval: 5_000,
  });
  const amount = preview ? BigInt(preview.costs.total ?? preview.costs.totalPerRun) : 0n;
  return (
    <>
      <h1>Subscriptions</h1>
      <p>
        Recurring runs from plain instructions, paid from a USDC balance you prepay into the SubscriptionVault. Each run
        costs its reward plus the platform fee; cancel any time and the unspent balance comes back.
      </p>
      <ConnectFirst to="create and manage subscriptions" />
      <form
        className="panel"
        aria-labelledby="new-subscription"
        onSubmit={async (e) => {
          e.preventDefault();
          setPreview(null);
          setPreviewError(null);
          try {
            setPreview(await hub.subscriptions.preview(instructions.trim(), value!, wallet?.address));
          } catch (error) {
            setPreviewError(error);
          }
        }}
      >
        <h2 id="new-subscription">New subscription</h2>
        <label className="field">
          <span>Instructions (what, how often, for how long)</span>
          <textarea rows={2} maxLength={2000} value={instructions} onChange={(e) => setInstructions(e.target.value)} />
        </label>
        <AmountField label="Reward per run (USDC)" value={reward} onChange={setReward} />
        <button type="submit" className="secondary" disabled={!instructions.trim() || !value}>
          Preview the cadence
        </button>
        {previewError ? <ErrorNote error={previewError} /> : null}
        {preview ? (
          <div aria-live="polite">
            <dl className="facts-grid">
              <dt>Cadence</dt>
              <dd>{preview.detected.cadence}</dd>
              <dt>Task</dt>
              <dd>{preview.detected.task}</dd>
              <dt>Runs</dt>
              <dd>{preview.detected.totalRuns ?? "until the balance is spent"}</dd>
              <dt>Next runs</dt>
              <dd>{preview.detected.nextRuns.map(dateTime).join(" · ")}</dd>
              <dt>Per run</dt>
              <dd>
                {usdc(preview.costs.totalPerRun)} ({usdc(preview.costs.rewardPerRun)} reward +{" "}
                {usdc(preview.costs.platformFeePerRun)} fee)
              </dd>
              <dt>Prepaid now</dt>
              <dd>{usdc(amount)}</dd>
            </dl>
            <Explained
              label="Create the subscription"
              disabled={create.status === "running"}
              explain={() => ({
                title: `Subscribe: ${preview.detected.cadence}`,
                lines: [
                  `Your wallet signs a USDC permit (EIP-2612): the SubscriptionVault (${preview.vault}) may take exactly ${usdc(amount)} (${amount} base units), within one hour.`,
                  `It signs the vault's Subscribe terms (EIP-712): ${usdc(preview.costs.rewardPerRun)} per run, ${preview.detected.cadence}; the vault creates each run at these terms only.`,
                  "And a message asking AgentHub to open it; the relayer sends the transaction (no ETH).",
                  "Cancel any time: the unspent balance is refunded to you.",
                ],
                cost: `${usdc(amount)} prepaid`,
              })}
              onConfirm={() =>
                void create.run(async (w) => {
                  const created = await w.hub.subscriptions.create(
                    { instructions: instructions.trim(), rewardPerRun: value!, amount },
                    w.signer,
                  );
                  setPreview(null);
                  return created;
                })
              }
            />
          </div>
        ) : null}
        <FlowStatus flow={create} done={() => <p>Subscribed: it is listed below.</p>} />
      </form>
      {wallet ? (
        <section aria-labelledby="mine">
          <h2 id="mine">Your subscriptions</h2>
          {mine.error ? <ErrorNote error={mine.error} /> : null}
          {mine.data?.subscriptions.length === 0 ? <p className="muted">None yet.</p> : null}
          <ul className="cards">
            {(mine.data?.subscriptions ?? []).map((s) => (
              <li key={s.id}>
                <SubscriptionCard subscription={s} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}

function SubscriptionCard({ subscription: s }: { subscription: Subscription }) {
  const [topUp, setTopUp] = useState("");
  const topUpValue = parseUsdc(topUp);
  const flow = useFlow<unknown>();
  const cancel = useFlow<Outcome>();
  const busy = flow.status === "running" || cancel.status === "running";
  const open = s.status !== "CANCELLED" && s.status !== "COMPLETED";
  const free = (what: string, action: string) => ({
    title: `${what} subscription #${s.id}`,
    lines: [`Your wallet signs a message (${action}) for this subscription only; the relayer sends the transaction.`],
    cost: "free (no gas)",
  });
  return (
    <>
      <h3>
        #{s.id}: {s.task}
      </h3>
      <p>
        <span className="badge">{stateLabel(s.status)}</span> · {s.cadence}
      </p>
      <dl className="facts-grid">
        <dt>Balance</dt>
        <dd>{usdc(s.balanceRemaining)}</dd>
        <dt>Runs</dt>
        <dd>
          {s.runsCreated} created{s.runsRemaining === null ? "" : `, ${s.runsRemaining} to go`}
        </dd>
        <dt>Next run</dt>
        <dd>{dateTime(s.nextRunAt)}</dd>
        <dt>Refunded</dt>
        <dd>{usdc(s.refunded)}</dd>
      </dl>
      {open ? (
        <>
          <AmountField label={`Top up #${s.id} (USDC)`} value={topUp} onChange={setTopUp} />
          <div className="row">
            <Explained
              label={`Top up #${s.id}`}
              disabled={!topUpValue || busy}
              explain={() => ({
                title: `Top up subscription #${s.id}`,
                lines: [
                  `Your wallet signs a USDC permit (EIP-2612): the SubscriptionVault may take exactly ${usdc(topUpValue)} (${topUpValue} base units), within one hour, and a message (subscription-topup).`,
                ],
                cost: usdc(topUpValue),
              })}
              onConfirm={() => void flow.run((w) => w.hub.subscriptions.topUp(s.id, { amount: topUpValue! }, w.signer))}
            />
            {s.status === "PAUSED" ? (
              <Explained
                label={`Resume #${s.id}`}
                className="secondary"
                disabled={busy}
                explain={() => free("Resume", "subscription-resume")}
                onConfirm={() => void flow.run((w) => w.hub.subscriptions.resume(s.id, w.signer))}
              />
            ) : (
              <Explained
                label={`Pause #${s.id}`}
                className="secondary"
                disabled={busy}
                explain={() => free("Pause", "subscription-pause")}
                onConfirm={() => void flow.run((w) => w.hub.subscriptions.pause(s.id, w.signer))}
              />
            )}
            <Explained
              label={`Cancel #${s.id}`}
              className="secondary"
              disabled={busy}
              explain={() => ({
                ...free("Cancel", "subscription-cancel"),
                lines: [
                  `Your wallet signs a message (subscription-cancel) for this subscription only; the vault refunds the unspent balance (${usdc(s.balanceRemaining)} now) to you.`,
                ],
                cost: "free: the balance comes back",
              })}
              onConfirm={() => void cancel.run((w) => w.hub.subscriptions.cancel(s.id, w.signer))}
            />
          </div>
        </>
      ) : null}
      <FlowStatus flow={flow} done={() => <p>Done.</p>} />
      <FlowStatus flow={cancel} done={(r) => <p>Cancelled: {usdc(r.refunded ?? "0")} refunded to your wallet.</p>} />
    </>
  );
}
