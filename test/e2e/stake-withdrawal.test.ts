// Stake withdrawal through the API, gasless: the identity token's owner signs, the relayer sends
// StakeVault.requestWithdrawal, then (after the vault's cooldown, chain time moved) StakeVault.withdraw, which pays
// the owner. Balances are checked to the base unit; refusals (another signer, a second request, too early, nothing
// pending, a replayed signature) move nothing.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { StakeVaultAbi } from "@agenthub/common/generated/abis";
import { signedAction, stakedAgent, usdcOf } from "../support/agents.ts";
import { api, apiClockCaughtUp, db, deployments, increaseTime, publicClient } from "../support/stack.ts";

after(() => db.end());

const vault = deployments.contracts.StakeVault.address;
const stakeOf = (agentId: number) =>
  publicClient.readContract({ address: vault, abi: StakeVaultAbi, functionName: "stakeOf", args: [BigInt(agentId)] });

function withdraw(agentId: number, body: Record<string, unknown>) {
  return api("POST", `/api/agents/${agentId}/stake/withdraw`, { body });
}

function fails(res: { status: number; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code, JSON.stringify(res.body));
}

describe("stake withdrawal (gasless, signed by the owner)", () => {
  it("requests, refuses early and repeated calls, then pays the owner after the cooldown", async () => {
    const agent = await stakedAgent(25_000_000n);
    const owner = agent.owner;
    const id = agent.agentId;
    const [ownerBefore, vaultBefore] = await Promise.all([usdcOf(owner.address), usdcOf(vault)]);
    assert.equal(await stakeOf(id), 25_000_000n);

    // Not the owner: the agent's own wallet key signs.
    const byWallet = await signedAction(agent.agentKey, "stake-withdraw-request", "agent", id);
    fails(await withdraw(id, { phase: "request", amount: "5000000", ...byWallet }), 403, "NOT_AGENT_OWNER");
    // Nothing pending yet.
    fails(
      await withdraw(id, { phase: "complete", ...(await signedAction(owner.key, "stake-withdraw", "agent", id)) }),
      409,
      "NO_PENDING_WITHDRAWAL",
    );
    // A signature for the other phase is refused.
    const wrongAction = await signedAction(owner.key, "stake-withdraw", "agent", id);
    fails(await withdraw(id, { phase: "request", amount: "5000000", ...wrongAction }), 401, "INVALID_SIGNATURE");

    const signed = await signedAction(owner.key, "stake-withdraw-request", "agent", id);
    const requested = await withdraw(id, { phase: "request", amount: "5000000", ...signed });
    assert.equal(requested.status, 200, JSON.stringify(requested.body));
    assert.equal(requested.body.phase, "requested");
    assert.equal(requested.body.amount, "5000000");
    const cooldown = (await api("GET", "/api/config")).body.parameters.stakeWithdrawalCooldownSeconds as number;
    const availableAt = Date.parse(requested.body.availableAt) / 1000;
    // Replaying the same signed request: its nonce is spent.
    fails(await withdraw(id, { phase: "request", amount: "5000000", ...signed }), 401, "INVALID_SIGNATURE");
    const again = await signedAction(owner.key, "stake-withdraw-request", "agent", id);
    fails(await withdraw(id, { phase: "request", amount: "1000000", ...again }), 409, "WITHDRAWAL_PENDING");
    const early = await signedAction(owner.key, "stake-withdraw", "agent", id);
    fails(await withdraw(id, { phase: "complete", ...early }), 409, "WITHDRAWAL_NOT_READY");
    assert.equal(await usdcOf(owner.address), ownerBefore, "nothing paid before the cooldown");
    assert.equal((await api("GET", `/api/agents/${id}/stake`)).body.pendingWithdrawal, "5000000");

    await increaseTime(cooldown + 1);
    await apiClockCaughtUp();
    const done = await withdraw(id, {
      phase: "complete",
      ...(await signedAction(owner.key, "stake-withdraw", "agent", id)),
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.phase, "withdrawn");
    assert.equal(done.body.paidTo, owner.address);
    assert.equal(done.body.amount, "5000000");
    assert.ok((await publicClient.getBlock()).timestamp >= BigInt(availableAt));
    assert.equal(await usdcOf(owner.address), ownerBefore + 5_000_000n, "the owner got exactly the amount");
    assert.equal(await usdcOf(vault), vaultBefore - 5_000_000n, "the vault paid exactly the amount");
    assert.equal(await stakeOf(id), 20_000_000n);
    const stake = (await api("GET", `/api/agents/${id}/stake`)).body;
    assert.equal(stake.pendingWithdrawal, "0");
    assert.equal(stake.stakedAmount, "20000000");
    fails(
      await withdraw(id, { phase: "complete", ...(await signedAction(owner.key, "stake-withdraw", "agent", id)) }),
      409,
      "NO_PENDING_WITHDRAWAL",
    );
  });

  it("refuses a request larger than the stake", async () => {
    const agent = await stakedAgent(20_000_000n);
    const signed = await signedAction(agent.owner.key, "stake-withdraw-request", "agent", agent.agentId);
    fails(
      await withdraw(agent.agentId, { phase: "request", amount: "20000001", ...signed }),
      400,
      "INSUFFICIENT_STAKE",
    );
    assert.equal(await stakeOf(agent.agentId), 20_000_000n);
  });
});
