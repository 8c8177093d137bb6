// Who speaks for an agent once its identity token changes hands: the new owner, and no longer the generated wallet
// (whose key the claimant received). The binding is indexed from the token's Transfer events.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { signPayment } from "@agenthub/api/client/x402";
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import {
  claimAgent,
  faucet,
  registerAgent,
  signedAction,
  signPermit,
  usdcOf,
  walletFromKey,
} from "../support/agents.ts";
import { chainTime, claim, newPoster, openRun } from "../support/runs.ts";
import { api, chain, db, deployments, newWallet, publicClient, waitUntil } from "../support/stack.ts";

after(() => db.end());

const walletBound = async (agentId: number) =>
  (await db.query("select wallet_bound from chain.agent where id = $1", [agentId])).rows[0]?.wallet_bound;

describe("agent control after a transfer", () => {
  it("the generated wallet loses every power once the token leaves the claimant; the new owner has them", async () => {
    const reg = await registerAgent();
    const { owner, agentKey } = await claimAgent(reg.agentId, reg.claimCode);
    // The claim is the one transfer that keeps the binding: the claimant received the wallet's key.
    assert.equal(await walletBound(reg.agentId), true);

    // The claimant sells the token: an ordinary ERC-721 transfer.
    const buyer = newWallet();
    await faucet(owner.address, 0n, 10n ** 16n);
    const hash = await owner.wallet.writeContract({
      address: deployments.contracts.AgentIdentity.address,
      abi: AgentIdentityAbi,
      functionName: "transferFrom",
      args: [owner.address, buyer.address, BigInt(reg.agentId)],
      account: owner.account,
      chain,
    });
    await publicClient.waitForTransactionReceipt({ hash });
    await waitUntil("transfer indexed", async () => (await walletBound(reg.agentId)) === false);

    const wallet = walletFromKey(agentKey);
    await faucet(wallet.address, 40_000_000n, 10n ** 16n);
    const deadline = (await chainTime()) + 3600n;
    const vault = deployments.contracts.StakeVault.address;
    const pool = deployments.contracts.InsurancePool.address;

    // Stake for the agent from the old wallet: refused.
    const stake = await api("POST", `/api/agents/${reg.agentId}/stake/permit`, {
      body: {
        walletAddress: wallet.address,
        amount: "20000000",
        deadline: Number(deadline),
        signature: await signPermit(agentKey, vault, 20_000_000n, deadline),
      },
    });
    assert.equal(stake.status, 403, JSON.stringify(stake.body));
    assert.equal(stake.body.error.code, "WALLET_MISMATCH");
    // Insurance coverage and its withdrawal: refused.
    const cover = await api("POST", "/api/insurance/stake", {
      body: {
        agentTokenId: reg.agentId,
        amountUsdc: "1000000",
        walletAddress: wallet.address,
        deadline: Number(deadline),
        signature: await signPermit(agentKey, pool, 1_000_000n, deadline),
      },
    });
    assert.equal(cover.status, 403, JSON.stringify(cover.body));
    const withdraw = await api("POST", "/api/insurance/withdraw", {
      body: {
        agentTokenId: reg.agentId,
        phase: "request",
        amountUsdc: "1",
        ...(await signedAction(agentKey, "insurance-withdraw-request", "agent", reg.agentId)),
      },
    });
    assert.equal(withdraw.status, 403, JSON.stringify(withdraw.body));
    // Claiming a run for the agent: refused.
    const poster = await newPoster();
    const run = await openRun(poster);
    const claimed = await claim(agentKey, wallet.address, run.bountyId, reg.agentId);
    assert.equal(claimed.status, 403, JSON.stringify(claimed.body));
    assert.equal(claimed.body.error.code, "WALLET_MISMATCH");
    // Attesting in the agent's name, paid by the old wallet: refused.
    const subject = await registerAgent();
    const recipient = (await api("GET", "/api/config")).body.platformRecipient;
    const attest = await api("POST", "/api/attestations/create", {
      headers: {
        "x-payment": await signPayment(wallet.account, { recipient, endpoint: "/api/attestations/create" }),
      },
      body: { attestorId: reg.agentId, subjectId: subject.agentId, category: "quality", rating: 1 },
    });
    assert.equal(attest.status, 403, JSON.stringify(attest.body));
    assert.equal(attest.body.error.code, "ATTESTOR_NOT_AUTHORIZED");
    assert.equal(await usdcOf(wallet.address), 40_000_000n, "nothing moved from the old wallet");

    // The buyer acts for the agent.
    await faucet(buyer.address, 20_000_000n, 10n ** 16n);
    const buyerStake = await api("POST", `/api/agents/${reg.agentId}/stake/permit`, {
      body: {
        walletAddress: buyer.address,
        amount: "20000000",
        deadline: Number(deadline),
        signature: await signPermit(buyer.key, vault, 20_000_000n, deadline),
      },
    });
    assert.equal(buyerStake.status, 200, JSON.stringify(buyerStake.body));
    assert.equal(buyerStake.body.stakedAmount, "20000000");
    const buyerClaim = await claim(buyer.key, buyer.address, run.bountyId, reg.agentId);
    assert.equal(buyerClaim.status, 200, JSON.stringify(buyerClaim.body));
  });
});
