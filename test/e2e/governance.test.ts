// Governance API end to end: SIWE access tokens, delegation and voting power, a proposal the proposer submits
// itself and records by txHash, gasless votes by EIP-712 ballot (voters hold no ETH), the Governor's real
// state through pending -> active -> succeeded/defeated -> queued -> executed on moved chain time, treasury.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AgentHubGovernorAbi, AgentHubTokenAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import { ballotTypedData } from "@agenthub/sdk/protocol";
import { type Address, encodeFunctionData, type Hex, keccak256, parseEther, toBytes } from "viem";
import { devAccounts } from "../../scripts/lib/chain.ts";
import { faucet, signedAction, walletFromKey } from "../support/agents.ts";
import { usdcBalance } from "../support/runs.ts";
import { api, chain, db, deployments, increaseTime, newWallet, publicClient, waitUntil } from "../support/stack.ts";

after(() => db.end());

const BASE = "/api/advanced/governance";
const DAY = 24 * 3600;
const governor = deployments.contracts.AgentHubGovernor.address;
const tokenAddress = deployments.contracts.AgentHubToken.address;
const timelock = deployments.contracts.AgentHubTimelock.address;
// The local deployment gives Hardhat's development account #2 the community allocation (35M AHUB, public test
// key; ignition/parameters/localhost.json): the tests hand voting power out from it.
const deployer = walletFromKey(devAccounts.governanceHolder);

function ok(res: { status: number; body: any }, status = 200) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  return res.body;
}

function fails(res: { status: number; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code, JSON.stringify(res.body));
  assert.equal(typeof res.body.error.message, "string");
}

async function mined(hash: Hex) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, "success");
  return receipt;
}

async function giveTokens(to: Address, amount: bigint) {
  await mined(
    await deployer.wallet.writeContract({
      address: tokenAddress,
      abi: AgentHubTokenAbi,
      functionName: "transfer",
      args: [to, amount],
      account: deployer.account,
      chain,
    }),
  );
}

/** Gasless delegation: the holder signs EIP-712 Delegation, the deployer submits delegateBySig. */
async function delegateBySig(holder: { key: Hex; address: Address }, delegatee: Address) {
  const account = walletFromKey(holder.key).account;
  const nonce = await publicClient.readContract({
    address: tokenAddress,
    abi: AgentHubTokenAbi,
    functionName: "nonces",
    args: [holder.address],
  });
  const expiry = (await publicClient.getBlock()).timestamp + 3600n;
  const signature = await account.signTypedData({
    domain: { name: "AgentHub", version: "1", chainId: chain.id, verifyingContract: tokenAddress },
    types: {
      Delegation: [
        { name: "delegatee", type: "address" },
        { name: "nonce", type: "uint256" },
        { name: "expiry", type: "uint256" },
      ],
    },
    primaryType: "Delegation",
    message: { delegatee, nonce, expiry },
  });
  const r = `0x${signature.slice(2, 66)}` as Hex;
  const s = `0x${signature.slice(66, 130)}` as Hex;
  const v = Number.parseInt(signature.slice(130, 132), 16);
  await mined(
    await deployer.wallet.writeContract({
      address: tokenAddress,
      abi: AgentHubTokenAbi,
      functionName: "delegateBySig",
      args: [delegatee, nonce, expiry, v, r, s],
      account: deployer.account,
      chain,
    }),
  );
}

async function signIn(key: Hex): Promise<{ token: string; auth: Record<string, string>; body: any }> {
  const { address } = walletFromKey(key);
  const signed = await signedAction(key, "governance-access", "account", address);
  const body = ok(await api("POST", "/api/auth/token", { body: signed }), 201);
  return { token: body.accessToken, auth: { authorization: `Bearer ${body.accessToken}` }, body };
}

async function ballot(key: Hex, proposalId: string, support: 0 | 1 | 2, reason?: string) {
  const { account, address } = walletFromKey(key);
  const nonce = await publicClient.readContract({
    address: governor,
    abi: AgentHubGovernorAbi,
    functionName: "nonces",
    args: [address],
  });
  const typed = ballotTypedData({
    governor,
    chainId: chain.id,
    proposalId: BigInt(proposalId),
    support,
    voter: address,
    nonce,
    reason,
  });
  return account.signTypedData(typed as never);
}

async function vote(key: Hex, auth: Record<string, string>, proposalId: string, support: 0 | 1 | 2, reason?: string) {
  const signature = await ballot(key, proposalId, support, reason);
  return api("POST", `${BASE}/proposals/${proposalId}/vote`, {
    headers: auth,
    body: { support, signature, ...(reason === undefined ? {} : { reason }) },
  });
}

const getProposal = (id: string) => api("GET", `${BASE}/proposals/${id}`);

/** A treasury-spend proposal: the timelock transfers `amount` USDC base units to `to`. */
function spend(to: Address, amount: bigint, title: string) {
  return {
    description: `# ${title}\n\nPay ${amount} USDC base units to ${to}.`,
    targets: [deployments.usdc.address],
    values: [0],
    calldatas: [encodeFunctionData({ abi: TestUSDCAbi, functionName: "transfer", args: [to, amount] })],
  };
}

/** Checks with the API (prepare), sends propose() from the proposer's wallet, records it by txHash. */
async function propose(proposer: { key: Hex }, auth: Record<string, string>, body: ReturnType<typeof spend>) {
  const prepared = ok(await api("POST", `${BASE}/proposals`, { headers: auth, body }));
  const { wallet, account } = walletFromKey(proposer.key);
  const hash = await wallet.sendTransaction({
    account,
    chain,
    to: prepared.transaction.to,
    data: prepared.transaction.data,
  });
  await mined(hash);
  const recorded = ok(await api("POST", `${BASE}/proposals`, { headers: auth, body: { ...body, txHash: hash } }), 201);
  assert.equal(recorded.proposal.id, prepared.proposalId);
  return { id: prepared.proposalId as string, hash, prepared, recorded };
}

async function onChain(functionName: "queue" | "execute", key: Hex, body: ReturnType<typeof spend>) {
  const { wallet, account } = walletFromKey(key);
  const hash = await wallet.writeContract({
    address: governor,
    abi: AgentHubGovernorAbi,
    functionName,
    args: [body.targets, body.values.map(BigInt), body.calldatas, keccak256(toBytes(body.description))],
    account,
    chain,
  });
  return mined(hash);
}

// Actors: a proposer above the 100k threshold (pays gas for propose/queue/execute), a large voter (5M, above the
// 4M quorum) and a holder delegating to it, both without ETH, and a small holder below the threshold.
const proposer = newWallet();
const whale = newWallet();
const delegator = newWallet();
const minnow = newWallet();
let proposerAuth: Record<string, string>;
let whaleAuth: Record<string, string>;
let minnowAuth: Record<string, string>;

before(async () => {
  await giveTokens(proposer.address, parseEther("200000"));
  await giveTokens(whale.address, parseEther("5000000"));
  await giveTokens(delegator.address, parseEther("1000000"));
  await giveTokens(minnow.address, parseEther("50000"));
  await faucet(proposer.address, 0n, 10n ** 18n);
  await faucet(minnow.address, 0n, 10n ** 17n);
  await delegateBySig(proposer, proposer.address);
  await delegateBySig(whale, whale.address);
  await delegateBySig(delegator, whale.address);
  await delegateBySig(minnow, minnow.address);
  await increaseTime(10);
  proposerAuth = (await signIn(proposer.key)).auth;
  whaleAuth = (await signIn(whale.key)).auth;
  minnowAuth = (await signIn(minnow.key)).auth;
});

describe("governance: access tokens", () => {
  it("issues a bearer token bound to the signing address; missing, unknown, expired and revoked tokens are 401", async () => {
    const holder = newWallet();
    const { token, auth, body } = await signIn(holder.key);
    assert.equal(body.tokenType, "Bearer");
    assert.equal(body.address, holder.address);
    assert.equal(body.scope, "governance");
    assert.equal(body.expiresIn, 3600);
    assert.ok(Date.parse(body.expiresAt) > Date.now() + 3500_000);
    assert.match(token, /^ahg_[A-Za-z0-9_-]{43}$/);
    const stored = await db.query("select token_hash, address from api.access_token where address = $1", [
      holder.address,
    ]);
    assert.equal(stored.rowCount, 1);
    assert.notEqual(stored.rows[0].token_hash, token, "only a hash is stored");

    const body0 = spend(holder.address, 1n, "auth check");
    fails(await api("POST", `${BASE}/proposals`, { body: body0 }), 401, "ACCESS_TOKEN_REQUIRED");
    fails(
      await api("POST", `${BASE}/proposals`, { body: body0, headers: { authorization: "Basic abc" } }),
      401,
      "ACCESS_TOKEN_REQUIRED",
    );
    fails(
      await api("POST", `${BASE}/proposals`, { body: body0, headers: { authorization: "Bearer ahg_nope" } }),
      401,
      "INVALID_ACCESS_TOKEN",
    );
    // Valid token, but no voting power: a clear 403, not a 500.
    fails(await api("POST", `${BASE}/proposals`, { body: body0, headers: auth }), 403, "INSUFFICIENT_VOTING_POWER");

    await db.query("update api.access_token set expires_at = now() - interval '1 second' where address = $1", [
      holder.address,
    ]);
    const expired = await api("POST", `${BASE}/proposals`, { body: body0, headers: auth });
    fails(expired, 401, "INVALID_ACCESS_TOKEN");
    assert.match(expired.body.error.message, /expired/);

    const fresh = await signIn(holder.key);
    assert.equal((await api("DELETE", "/api/auth/token", { headers: fresh.auth })).status, 204);
    fails(await api("POST", `${BASE}/proposals`, { body: body0, headers: fresh.auth }), 401, "INVALID_ACCESS_TOKEN");

    // A sign-in message for another address's resource, or replayed, is refused.
    const other = newWallet();
    const wrong = await signedAction(holder.key, "governance-access", "account", other.address);
    fails(await api("POST", "/api/auth/token", { body: wrong }), 401, "INVALID_SIGNATURE");
    const once = await signedAction(holder.key, "governance-access", "account", holder.address);
    ok(await api("POST", "/api/auth/token", { body: once }), 201);
    fails(await api("POST", "/api/auth/token", { body: once }), 401, "INVALID_SIGNATURE");
    fails(
      await api("POST", "/api/auth/token", { body: { message: "hello", signature: `0x${"11".repeat(65)}` } }),
      401,
      "INVALID_SIGNATURE",
    );
  });
});

describe("governance: voting power and treasury", () => {
  it("reports balance, votes and delegation both ways", async () => {
    const w = ok(await api("GET", `${BASE}/voting-power/${whale.address.toLowerCase()}`));
    assert.equal(w.address, whale.address);
    assert.equal(w.balance, parseEther("5000000").toString());
    assert.equal(w.votingPower, parseEther("6000000").toString(), "own 5M + 1M delegated");
    assert.equal(w.delegatedTo, "self");
    const from = await waitUntil("indexed delegation", async () => {
      const r = ok(await api("GET", `${BASE}/voting-power/${whale.address}`));
      return r.delegatedFrom.length ? r.delegatedFrom : undefined;
    });
    assert.deepEqual(from, [delegator.address]);
    assert.equal(w.ballotNonce, "0");

    const d = ok(await api("GET", `${BASE}/voting-power/${delegator.address}`));
    assert.equal(d.balance, parseEther("1000000").toString());
    assert.equal(d.votingPower, "0");
    assert.equal(d.delegatedTo, whale.address);
    assert.deepEqual(d.delegatedFrom, []);

    const nobody = ok(await api("GET", `${BASE}/voting-power/${newWallet().address}`));
    assert.equal(nobody.balance, "0");
    assert.equal(nobody.votingPower, "0");
    assert.equal(nobody.delegatedTo, null);
    fails(await api("GET", `${BASE}/voting-power/0x1234`), 400, "VALIDATION_ERROR");
  });

  it("reports the timelock's USDC, governance token and ETH balances in base units", async () => {
    await faucet(timelock, 7_000_000n, 12345n);
    const t = ok(await api("GET", `${BASE}/treasury`));
    assert.equal(t.address, timelock);
    assert.deepEqual(Object.keys(t.balances).sort(), ["AHUB", "ETH", "USDC"]);
    assert.equal(t.balances.USDC, (await usdcBalance(timelock)).toString());
    assert.ok(BigInt(t.balances.USDC) >= 7_000_000n);
    assert.equal(t.balances.ETH, (await publicClient.getBalance({ address: timelock })).toString());
    // The treasury allocation (40M AHUB) went to the timelock at deployment.
    assert.equal(t.balances.AHUB, parseEther("40000000").toString());
  });
});

describe("governance: proposals and votes", () => {
  it("pending -> active -> succeeded -> queued -> executed, with a gasless vote and the treasury paying out", async () => {
    const recipient = newWallet();
    const body = spend(recipient.address, 1_000_000n, `Grant ${recipient.address.slice(0, 8)}`);
    const { id, hash, prepared, recorded } = await propose(proposer, proposerAuth, body);
    assert.equal(prepared.proposer, proposer.address);
    assert.equal(prepared.votingPower, parseEther("200000").toString());
    assert.equal(prepared.proposalThreshold, parseEther("100000").toString());
    assert.equal(prepared.transaction.to, governor);
    const p = recorded.proposal;
    assert.equal(p.status, "pending");
    assert.equal(p.proposer, proposer.address);
    assert.equal(p.description, body.description);
    assert.equal(p.forVotes, "0");
    assert.equal(p.eta, null);
    assert.equal(p.txHash, hash);
    // The spec's startBlock/endBlock are the Governor's snapshot/deadline timepoints: unix seconds on this clock.
    assert.equal(p.startBlock, undefined);
    assert.equal(p.clockMode, "mode=timestamp");
    assert.equal(p.deadline - p.snapshot, 7 * DAY, "clock values are timestamps");
    const created = (
      await publicClient.getBlock({ blockNumber: (await publicClient.getTransactionReceipt({ hash })).blockNumber })
    ).timestamp;
    assert.equal(p.snapshot, Number(created) + DAY);
    for (const [fn, value] of [
      ["proposalSnapshot", p.snapshot],
      ["proposalDeadline", p.deadline],
    ] as const) {
      const onchain = await publicClient.readContract({
        address: governor,
        abi: AgentHubGovernorAbi,
        functionName: fn,
        args: [BigInt(id)],
      });
      assert.equal(Number(onchain), value, fn);
    }
    assert.equal(p.voteStart, new Date(p.snapshot * 1000).toISOString());
    assert.deepEqual(p.targets, body.targets);
    assert.deepEqual(p.values, ["0"]);

    // Recording the same transaction again, or proposing the same thing again, is refused.
    fails(
      await api("POST", `${BASE}/proposals`, { headers: proposerAuth, body: { ...body, txHash: hash } }),
      400,
      "TX_ALREADY_USED",
    );
    fails(await api("POST", `${BASE}/proposals`, { headers: proposerAuth, body }), 409, "PROPOSAL_EXISTS");
    // The whale's token cannot claim the proposer's transaction.
    fails(
      await api("POST", `${BASE}/proposals`, { headers: whaleAuth, body: { ...body, txHash: hash } }),
      403,
      "PROPOSER_MISMATCH",
    );
    fails(
      await api("POST", `${BASE}/proposals`, {
        headers: proposerAuth,
        body: { ...body, description: "other", txHash: hash },
      }),
      400,
      "PROPOSAL_MISMATCH",
    );

    fails(await vote(whale.key, whaleAuth, id, 1), 409, "PROPOSAL_NOT_ACTIVE");
    await increaseTime(DAY + 1);
    assert.equal(ok(await getProposal(id)).status, "active");

    // Wrong signer, or a voter other than the token's address.
    const forged = await ballot(minnow.key, id, 1);
    fails(
      await api("POST", `${BASE}/proposals/${id}/vote`, {
        headers: whaleAuth,
        body: { support: 1, signature: forged },
      }),
      400,
      "INVALID_BALLOT_SIGNATURE",
    );
    fails(
      await api("POST", `${BASE}/proposals/${id}/vote`, {
        headers: whaleAuth,
        body: { support: 1, signature: forged, voter: minnow.address },
      }),
      403,
      "VOTER_MISMATCH",
    );
    fails(
      await api("POST", `${BASE}/proposals/${id}/vote`, {
        headers: whaleAuth,
        body: { support: 3, signature: forged },
      }),
      400,
      "VALIDATION_ERROR",
    );
    fails(
      await api("POST", `${BASE}/proposals/${id}/vote`, { body: { support: 1, signature: forged } }),
      401,
      "ACCESS_TOKEN_REQUIRED",
    );
    // The delegator gave its votes away: nothing to vote with.
    const delegatorAuth = (await signIn(delegator.key)).auth;
    fails(await vote(delegator.key, delegatorAuth, id, 1), 403, "NO_VOTING_POWER");

    const voted = ok(await vote(whale.key, whaleAuth, id, 1, "Good use of the treasury"));
    assert.equal(voted.voter, whale.address);
    assert.equal(voted.support, 1);
    assert.equal(voted.weight, parseEther("6000000").toString());
    assert.equal(voted.reason, "Good use of the treasury");
    assert.equal(voted.proposal.forVotes, parseEther("6000000").toString());
    assert.equal(voted.proposal.status, "active");
    assert.equal(await publicClient.getBalance({ address: whale.address }), 0n, "the voter paid no gas");
    const tx = await publicClient.getTransaction({ hash: voted.txHash });
    assert.notEqual(tx.from.toLowerCase(), whale.address.toLowerCase());
    const indexedVote = await db.query("select support, weight::text, reason from chain.vote where proposal_id = $1", [
      id,
    ]);
    assert.deepEqual(indexedVote.rows, [
      { support: 1, weight: parseEther("6000000").toString(), reason: "Good use of the treasury" },
    ]);
    fails(await vote(whale.key, whaleAuth, id, 0), 409, "ALREADY_VOTED");
    // The proposer votes against without a reason (plain Ballot, castVoteBySig).
    const against = ok(await vote(proposer.key, proposerAuth, id, 0));
    assert.equal(against.proposal.againstVotes, parseEther("200000").toString());

    const active = ok(await api("GET", `${BASE}/proposals?status=active`));
    assert.ok(active.proposals.some((x: any) => x.id === id));
    await increaseTime(7 * DAY);
    const succeeded = ok(await getProposal(id));
    assert.equal(succeeded.status, "succeeded");
    const listed = ok(await api("GET", `${BASE}/proposals?status=succeeded`));
    assert.ok(listed.proposals.some((x: any) => x.id === id && x.status === "succeeded"));
    assert.ok(!ok(await api("GET", `${BASE}/proposals?status=active`)).proposals.some((x: any) => x.id === id));

    await onChain("queue", proposer.key, body);
    const queued = await waitUntil("queued", async () => {
      const r = ok(await getProposal(id));
      return r.status === "queued" ? r : undefined;
    });
    const now = Number((await publicClient.getBlock()).timestamp);
    assert.equal(queued.eta, now + 2 * DAY);
    // The list filters on indexed facts (then confirms with the chain): the queue event is indexed shortly.
    await waitUntil("indexed queue", async () =>
      ok(await api("GET", `${BASE}/proposals?status=queued`)).proposals.some(
        (x: any) => x.id === id && x.eta === queued.eta,
      ),
    );

    const before = BigInt(ok(await api("GET", `${BASE}/treasury`)).balances.USDC);
    await increaseTime(2 * DAY + 1);
    await onChain("execute", proposer.key, body);
    assert.equal(ok(await getProposal(id)).status, "executed");
    await waitUntil("indexed execution", async () =>
      ok(await api("GET", `${BASE}/proposals?status=executed`)).proposals.some((x: any) => x.id === id),
    );
    assert.equal(BigInt(ok(await api("GET", `${BASE}/treasury`)).balances.USDC), before - 1_000_000n);
    assert.equal(await usdcBalance(recipient.address), 1_000_000n);
    fails(await vote(proposer.key, proposerAuth, id, 1), 409, "PROPOSAL_NOT_ACTIVE");
  });

  it("a proposal without quorum is defeated when the voting period ends", async () => {
    const body = spend(newWallet().address, 1n, "Underattended");
    const { id } = await propose(proposer, proposerAuth, body);
    await increaseTime(DAY + 1);
    // 200k for, far below the 4M quorum.
    ok(await vote(proposer.key, proposerAuth, id, 1));
    await increaseTime(7 * DAY - 100);
    assert.equal(ok(await getProposal(id)).status, "active");
    await increaseTime(200);
    const p = ok(await getProposal(id));
    assert.equal(p.status, "defeated");
    assert.equal(p.forVotes, parseEther("200000").toString());
    assert.ok(ok(await api("GET", `${BASE}/proposals?status=defeated`)).proposals.some((x: any) => x.id === id));
    const all = ok(await api("GET", `${BASE}/proposals?limit=100`));
    assert.ok(all.total >= 2);
    for (const x of all.proposals) {
      const chainState = await publicClient.readContract({
        address: governor,
        abi: AgentHubGovernorAbi,
        functionName: "state",
        args: [BigInt(x.id)],
      });
      assert.equal(
        x.status,
        ["pending", "active", "canceled", "defeated", "succeeded", "queued", "expired", "executed"][chainState],
      );
    }
  });

  it("refuses proposals below the 100k threshold with INSUFFICIENT_VOTING_POWER, before and after sending", async () => {
    const body = spend(minnow.address, 1n, "Minnow wants money");
    fails(await api("POST", `${BASE}/proposals`, { headers: minnowAuth, body }), 403, "INSUFFICIENT_VOTING_POWER");
    // Sent anyway (gas given, so no simulation): the transaction reverts and recording it says why.
    const { wallet, account } = walletFromKey(minnow.key);
    const request = await wallet.prepareTransactionRequest({
      account,
      chain,
      to: governor,
      gas: 1_000_000n,
      data: encodeFunctionData({
        abi: AgentHubGovernorAbi,
        functionName: "propose",
        args: [body.targets, body.values.map(BigInt), body.calldatas as Hex[], body.description],
      }),
    });
    const serializedTransaction = await wallet.signTransaction(request as never);
    const hash = keccak256(serializedTransaction);
    // The node mines the reverting transaction but answers the send with the revert.
    await publicClient.sendRawTransaction({ serializedTransaction }).catch(() => undefined);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, "reverted");
    fails(
      await api("POST", `${BASE}/proposals`, { headers: minnowAuth, body: { ...body, txHash: hash } }),
      403,
      "INSUFFICIENT_VOTING_POWER",
    );
  });

  it("the proposer cancels a pending proposal through the API; nobody else, and not once voting opened", async () => {
    const body = spend(newWallet().address, 5n, "To be canceled");
    const { id } = await propose(proposer, proposerAuth, body);
    const cancelPath = `${BASE}/proposals/${id}/cancel`;
    fails(await api("POST", cancelPath, { body: {} }), 401, "ACCESS_TOKEN_REQUIRED");
    fails(await api("POST", cancelPath, { headers: whaleAuth, body: {} }), 403, "NOT_PROPOSER");
    fails(
      await api("POST", `${BASE}/proposals/123/cancel`, { headers: proposerAuth, body: {} }),
      404,
      "PROPOSAL_NOT_FOUND",
    );
    const prepared = ok(await api("POST", cancelPath, { headers: proposerAuth, body: {} }));
    assert.equal(prepared.status, "pending");
    assert.equal(prepared.transaction.to, governor);
    // A transaction that canceled nothing is not accepted as the cancel.
    const { wallet, account } = walletFromKey(proposer.key);
    const unrelated = await wallet.sendTransaction({ account, chain, to: proposer.address, value: 0n });
    await mined(unrelated);
    fails(
      await api("POST", cancelPath, { headers: proposerAuth, body: { txHash: unrelated } }),
      400,
      "PROPOSAL_MISMATCH",
    );
    const hash = await wallet.sendTransaction({
      account,
      chain,
      to: prepared.transaction.to,
      data: prepared.transaction.data,
    });
    await mined(hash);
    const canceled = ok(await api("POST", cancelPath, { headers: proposerAuth, body: { txHash: hash } }));
    assert.equal(canceled.proposal.status, "canceled");
    assert.equal(canceled.txHash, hash);
    assert.equal(ok(await getProposal(id)).status, "canceled");
    assert.ok(ok(await api("GET", `${BASE}/proposals?status=canceled`)).proposals.some((x: any) => x.id === id));
    fails(await api("POST", cancelPath, { headers: proposerAuth, body: {} }), 409, "PROPOSAL_NOT_PENDING");
    fails(await vote(whale.key, whaleAuth, id, 1), 409, "PROPOSAL_NOT_ACTIVE");

    // Once voting opened, the proposer can no longer cancel.
    const later = spend(newWallet().address, 6n, "Too late to cancel");
    const { id: activeId } = await propose(proposer, proposerAuth, later);
    await increaseTime(DAY + 1);
    fails(
      await api("POST", `${BASE}/proposals/${activeId}/cancel`, { headers: proposerAuth, body: {} }),
      409,
      "PROPOSAL_NOT_PENDING",
    );
  });

  it("validates inputs: status filter, ids, proposal arrays", async () => {
    fails(await api("GET", `${BASE}/proposals?status=open`), 400, "VALIDATION_ERROR");
    fails(await api("GET", `${BASE}/proposals?status=ACTIVE`), 400, "VALIDATION_ERROR");
    fails(await api("GET", `${BASE}/proposals?limit=0`), 400, "VALIDATION_ERROR");
    for (const status of ["pending", "canceled"]) ok(await api("GET", `${BASE}/proposals?status=${status}`));
    // No proposal ever expires under OpenZeppelin 5's timelock: the filter is refused with the reason.
    const expired = await api("GET", `${BASE}/proposals?status=expired`);
    fails(expired, 400, "UNSUPPORTED_STATUS_FILTER");
    assert.match(expired.body.error.message, /grace period/);
    fails(await getProposal("123"), 404, "PROPOSAL_NOT_FOUND");
    fails(await getProposal("abc"), 400, "VALIDATION_ERROR");
    fails(await getProposal("9".repeat(79)), 400, "VALIDATION_ERROR");
    fails(await getProposal((2n ** 256n).toString()), 400, "VALIDATION_ERROR");
    fails(await vote(whale.key, whaleAuth, "123", 1), 404, "PROPOSAL_NOT_FOUND");
    const good = spend(proposer.address, 1n, "validation");
    for (const bad of [
      { ...good, targets: [], values: [], calldatas: [] },
      { ...good, values: [0, 0] },
      { ...good, calldatas: ["0x123"] },
      { ...good, targets: ["0xnope"] },
      { ...good, values: [-1] },
      { ...good, description: "" },
      { ...good, txHash: "0x12" },
    ]) {
      fails(await api("POST", `${BASE}/proposals`, { headers: proposerAuth, body: bad }), 400, "VALIDATION_ERROR");
    }
    fails(
      await api("POST", `${BASE}/proposals`, {
        headers: proposerAuth,
        body: { ...good, txHash: `0x${"12".repeat(32)}` },
      }),
      400,
      "TX_NOT_FOUND",
    );
  });
});

describe("governance and insurance: OpenAPI", () => {
  it("documents every insurance and governance route with its schemas", async () => {
    const doc = ok(await api("GET", "/openapi.json"));
    for (const path of [
      "/api/insurance/stake",
      "/api/insurance/withdraw",
      "/api/insurance/coverage/{agentTokenId}",
      "/api/insurance/stake/{agentTokenId}",
      "/api/insurance/agent/{agentId}/stakes",
      "/api/insurance/bounty/{bountyId}/claims",
      "/api/auth/token",
      `${BASE}/proposals`,
      `${BASE}/proposals/{proposalId}`,
      `${BASE}/proposals/{proposalId}/vote`,
      `${BASE}/proposals/{proposalId}/cancel`,
      `${BASE}/voting-power/{address}`,
      `${BASE}/treasury`,
    ]) {
      assert.ok(doc.paths[path], `${path} is documented`);
    }
    for (const name of [
      "Proposal",
      "VotingPower",
      "Treasury",
      "InsuranceStake",
      "InsuranceCoverage",
      "InsuranceClaim",
    ]) {
      assert.ok(doc.components.schemas[name], `schema ${name}`);
    }
  });
});
