// The agent's stake: deposit by an EIP-2612 permit (gasless: the relayer sends the deposit), and the two-phase
// withdrawal (ask, wait the vault's cooldown, collect), each phase a signed request relayed for the owner.
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

export function StakePanel({ agentId }: { agentId: number }) {
  const { wallet } = useWallet();
  const stake = useQuery({ queryKey: ["stake", agentId], queryFn: () => hub.agents.stakeInfo(agentId) });
  const config = useQuery({ queryKey: ["config"], queryFn: () => hub.config(), staleTime: Number.POSITIVE_INFINITY });
  const balance = useQuery({
    queryKey: ["usdc-balance", wallet?.address],
    queryFn: () => wallet!.hub.usdcBalance(wallet!.address),
    enabled: wallet !== null,
  });
  const [amount, setAmount] = useState("");
  const [withdrawAmount, setWithdrawAmount] = useState("");
  const deposit = useFlow<Awaited<ReturnType<typeof hub.agents.stakeWithPermit>>>();
  const withdraw = useFlow<Awaited<ReturnType<typeof hub.agents.requestStakeWithdrawal>>>();
  const value = parseUsdc(amount);
  const withdrawValue = parseUsdc(withdrawAmount);
  const s = stake.data;
  const cooldown = config.data?.parameters.stakeWithdrawalCooldownSeconds;
  const vault = config.data?.contracts.StakeVault;

  return (
    <section className="panel" aria-labelledby="stake">
      <h2 id="stake">Stake</h2>
      {stake.error ? <ErrorNote error={stake.error} /> : null}
      {s ? (
        <dl className="facts-grid">
          <dt>Staked</dt>
          <dd data-testid="staked">{usdc(s.stakedAmount)}</dd>
          <dt>Minimum to take runs</dt>
          <dd>{usdc(s.minimumStake)}</dd>
          <dt>Can take runs</dt>
          <dd>{s.canClaimRuns ? "yes" : "no"}</dd>
          <dt>Asked to withdraw</dt>
          <dd>{s.pendingWithdrawal === "0" ? "nothing" : usdc(s.pendingWithdrawal)}</dd>
          {wallet ? (
            <>
              <dt>Your wallet's USDC</dt>
              <dd>{balance.data === undefined ? "…" : usdc(balance.data)}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
      <AmountField label="Amount to stake (USDC)" value={amount} onChange={setAmount} />
      <Explained
        label="Stake"
        disabled={value === null || value === 0n || deposit.status === "running"}
        explain={() =>
          value && wallet
            ? {
                title: `Stake ${usdc(value)} on agent #${agentId}`,
                lines: [
                  `Your wallet signs a USDC permit (EIP-2612): the StakeVault (${vault}) may take exactly ${usdc(value)} (${value} base units) from ${wallet.address}, within one hour.`,
                  "AgentHub's relayer then deposits it as this agent's stake: no ETH, no gas for you.",
                  `Stake can be slashed if the agent fails a run it took; you can withdraw it after a cooldown of ${cooldown === undefined ? "…" : `${Math.round(cooldown / 86400)} days`}.`,
                ],
                cost: `${usdc(value)} locked as stake`,
              }
            : null
        }
        onConfirm={() =>
          void deposit.run((w) => w.hub.agents.stakeWithPermit(agentId, { amount: value!, signer: w.signer }))
        }
      />
      <FlowStatus flow={deposit} done={(r) => <p>Staked: the agent now holds {usdc(r.stakedAmount)}.</p>} />

      <h3>Withdraw</h3>
      <p className="muted">
        Two steps: ask (the cooldown starts and the amount stops counting), then collect it after the cooldown. Both are
        signed messages; the relayer pays the gas.
      </p>
      <AmountField label="Amount to withdraw (USDC)" value={withdrawAmount} onChange={setWithdrawAmount} />
      <div className="row">
        <Explained
          label="Ask to withdraw"
          className="secondary"
          disabled={withdrawValue === null || withdrawValue === 0n || withdraw.status === "running"}
          explain={() =>
            withdrawValue
              ? {
                  title: `Ask to withdraw ${usdc(withdrawValue)}`,
                  lines: [
                    `Your wallet signs a message asking AgentHub to request the withdrawal of ${usdc(withdrawValue)} of agent #${agentId}'s stake (stake-withdraw-request).`,
                    "The amount stops counting as stake now; it can be collected once the vault's cooldown has passed.",
                  ],
                  cost: "free (no gas)",
                }
              : null
          }
          onConfirm={() =>
            void withdraw.run((w) =>
              w.hub.agents.requestStakeWithdrawal(agentId, { amount: withdrawValue!, signer: w.signer }),
            )
          }
        />
        <Explained
          label="Collect withdrawal"
          className="secondary"
          disabled={!s || s.pendingWithdrawal === "0" || withdraw.status === "running"}
          explain={() => ({
            title: "Collect the withdrawal",
            lines: [
              `Your wallet signs a message asking AgentHub to complete the withdrawal (stake-withdraw): the vault pays ${s ? usdc(s.pendingWithdrawal) : "the amount asked"} to the agent's owner.`,
              "It works only after the cooldown; before, the API answers WITHDRAWAL_NOT_READY.",
            ],
            cost: "free (no gas)",
          })}
          onConfirm={() =>
            void withdraw.run((w) => w.hub.agents.completeStakeWithdrawal(agentId, { signer: w.signer }))
          }
        />
      </div>
      <FlowStatus
        flow={withdraw}
        done={(r) =>
          r.phase === "requested" ? (
            <p>
              Asked to withdraw {usdc(r.amount)}; it can be collected from {dateTime(r.availableAt)}.
            </p>
          ) : (
            <p>
              Withdrawn: {usdc(r.amount)} paid to <code>{r.paidTo}</code>.
            </p>
          )
        }
      />
    </section>
  );
}
