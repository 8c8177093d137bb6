// Insurance coverage: USDC the owner puts in the InsurancePool for this agent (gasless permit). Runs that declare a
// cover need that much coverage to be claimed; a poster whose run the agent fails is paid from it. Withdrawn in two
// phases like the stake.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorNote } from "../../components/Status.tsx";
import { parseUsdc } from "../../flows/amount.ts";
import { Explained } from "../../flows/Explained.tsx";
import { AmountField } from "../../flows/Fields.tsx";
import { FlowStatus } from "../../flows/FlowStatus.tsx";
import { useFlow } from "../../flows/useFlow.ts";
import { dateTime, usdc } from "../../format.ts";
import { hub } from "../../hub.ts";
import { useWallet } from "../../wallet/state.tsx";

export function InsurancePanel({ agentId }: { agentId: number }) {
  const { wallet } = useWallet();
  const cover = useQuery({ queryKey: ["coverage", agentId], queryFn: () => hub.insurance.stakeOf(agentId) });
  const config = useQuery({ queryKey: ["config"], queryFn: () => hub.config(), staleTime: Number.POSITIVE_INFINITY });
  const [amount, setAmount] = useState("");
  const value = parseUsdc(amount);
  const add = useFlow<unknown>();
  const withdraw = useFlow<unknown>();
  const c = cover.data;
  const pending = c?.pendingWithdrawal;
  return (
    <section className="panel" aria-labelledby="insurance">
      <h2 id="insurance">Insurance coverage</h2>
      <p className="muted">
        Runs can ask for cover (agreed damages): only an agent with at least that much coverage can take them, and a
        poster whose run it fails is paid from it.
      </p>
      {cover.error ? <ErrorNote error={cover.error} /> : null}
      {c ? (
        <dl className="facts-grid">
          <dt>Coverage</dt>
          <dd>{usdc(c.coverage)}</dd>
          <dt>Available</dt>
          <dd>{usdc(c.availableCoverage)}</dd>
          <dt>Asked to withdraw</dt>
          <dd>{pending ? `${usdc(pending.amount)} from ${dateTime(pending.availableAt)}` : "nothing"}</dd>
        </dl>
      ) : null}
      <AmountField label="Coverage amount (USDC)" value={amount} onChange={setAmount} />
      <div className="row">
        <Explained
          label="Add coverage"
          disabled={!value || add.status === "running"}
          explain={() =>
            value && wallet
              ? {
                  title: `Add ${usdc(value)} of coverage`,
                  lines: [
                    `Your wallet signs a USDC permit (EIP-2612): the InsurancePool (${config.data?.contracts.InsurancePool}) may take exactly ${usdc(value)} (${value} base units) from ${wallet.address}, within one hour.`,
                    "AgentHub's relayer stakes it as this agent's coverage: no ETH needed.",
                    "Posters of runs the agent fails (timeout, lost dispute) can be paid from it.",
                  ],
                  cost: `${usdc(value)} held as coverage`,
                }
              : null
          }
          onConfirm={() =>
            void add.run((w) => w.hub.insurance.stakeWithPermit(agentId, { amount: value!, signer: w.signer }))
          }
        />
        <Explained
          label="Ask to withdraw coverage"
          className="secondary"
          disabled={!value || withdraw.status === "running"}
          explain={() =>
            value
              ? {
                  title: `Ask to withdraw ${usdc(value)} of coverage`,
                  lines: [
                    `Your wallet signs a message (insurance-withdraw-request) asking to withdraw ${usdc(value)}; the cooldown of ${c ? Math.round(c.withdrawalCooldownSeconds / 86400) : "…"} days starts.`,
                  ],
                  cost: "free (no gas)",
                }
              : null
          }
          onConfirm={() => void withdraw.run((w) => w.hub.insurance.requestWithdrawal(agentId, value!, w.signer))}
        />
        <Explained
          label="Collect coverage withdrawal"
          className="secondary"
          disabled={!pending || withdraw.status === "running"}
          explain={() => ({
            title: "Collect the coverage withdrawal",
            lines: [
              `Your wallet signs a message (insurance-withdraw): the pool pays ${pending ? usdc(pending.amount) : "the amount asked"} out, after the cooldown.`,
            ],
            cost: "free (no gas)",
          })}
          onConfirm={() => void withdraw.run((w) => w.hub.insurance.completeWithdrawal(agentId, w.signer))}
        />
      </div>
      <FlowStatus flow={add} done={() => <p>Coverage added.</p>} />
      <FlowStatus flow={withdraw} done={() => <p>Done: the figures above are the pool's now.</p>} />
    </section>
  );
}
