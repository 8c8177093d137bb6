// Agents on chain themselves (issue 17): an agent holding only its key and 0 ETH delegates its address to
// Simple7702Account (EIP-7702) and acts through UserOperations sent to the stack's real Alto bundler, with gas paid
// by AgentHub's paymaster (ERC-7677 at /api/paymaster, used through viem's standard paymaster client).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import SimpleAccountArtifact from "@account-abstraction/contracts/artifacts/SimpleAccount.json" with { type: "json" };
import { loadApiEnv } from "@agenthub/api/env";
import { proxyRuntimeOf } from "@agenthub/api/paymaster/account-code";
import { startApi } from "@agenthub/api/server";
import { AgentIdentityAbi, StakeVaultAbi, TestUSDCAbi, VerifyingPaymasterAbi } from "@agenthub/common/generated/abis";
import { AgentHub, isAgentHubError } from "@agenthub/sdk";
import { type AgentAccount, agentAccount, agentActions, delegationIfNeeded } from "@agenthub/sdk/smart-account";
import { ExactEvmScheme } from "@x402/evm";
import { wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  parseAbi,
  type SignedAuthorization,
  toHex,
} from "viem";
import {
  entryPoint08Abi,
  formatUserOperation,
  toPackedUserOperation,
  type UserOperation,
} from "viem/account-abstraction";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { simple7702AccountArtifact } from "../../ignition/account-abstraction.ts";
import { faucet, registerAgent } from "../support/agents.ts";
import { adminHeaders, escrowAddress, escrowRun, newPoster, openRun, step, usdcBalance } from "../support/runs.ts";
import { api, db, deployments, freshIp, publicClient, stack, waitUntil } from "../support/stack.ts";

const aa = deployments.accountAbstraction!;
const bundlerUrl = stack.env.BUNDLER_URL!;
const schema = stack.env.INDEXER_SCHEMA ?? "chain";
const vault = deployments.contracts.StakeVault.address;
const actions = agentActions(deployments);
const STAKE = 20_000_000n;

/** A registered agent claimed to a fresh key of its own, with `usdc` base units and no ETH. */
async function selfCustodiedAgent(usdc: bigint) {
  const key = generatePrivateKey();
  const owner = privateKeyToAccount(key);
  const reg = await registerAgent();
  const signature = await owner.signMessage({ message: `I claim agent ${reg.agentId} to address ${owner.address}` });
  const claimed = await api("POST", `/api/agents/${reg.agentId}/claim`, {
    body: { signature, userAddress: owner.address, claimCode: reg.claimCode },
  });
  assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
  if (usdc > 0n) await faucet(owner.address, usdc);
  // The paymaster reads the owner from the index (chain facts): wait for the claim transfer there.
  await waitUntil("the claim transfer in the index", async () => {
    const r = await db.query(`select 1 from ${schema}.agent where id = $1 and lower(owner) = lower($2)`, [
      reg.agentId,
      owner.address,
    ]);
    return r.rowCount === 1 || undefined;
  });
  const account = await agentAccount({
    owner,
    client: publicClient,
    bundlerUrl,
    apiUrl: stack.apiUrl,
    accountAbstraction: aa,
  });
  return { key, owner, agentId: BigInt(reg.agentId), account };
}

/**
 * The paymaster's JSON-RPC answer for an operation `account` would send with `calls` (or `sender`, another account
 * making the same account call). An EOA not yet delegating to Simple7702Account carries its authorization, as
 * permissionless sends it, unless `eip7702Auth` says otherwise (null: none).
 */
async function askPaymaster(
  account: AgentAccount,
  calls: { to: Address; data: Hex }[],
  method = "pm_getPaymasterStubData",
  overrides: {
    sender?: Address;
    nonce?: bigint;
    maxFeePerGas?: bigint;
    maxPriorityFeePerGas?: bigint;
    callGasLimit?: bigint;
    verificationGasLimit?: bigint;
    preVerificationGas?: bigint;
    factory?: Address | "0x7702";
    factoryData?: Hex;
    eip7702Auth?: SignedAuthorization | null;
  } = {},
) {
  // Built by hand: a 0-ETH account cannot be estimated without a paymaster, and the test asks the paymaster itself.
  const fees = await publicClient.estimateFeesPerGas();
  const smartAccount = account.client.account!;
  const { eip7702Auth, ...fields } = overrides;
  const authorization =
    eip7702Auth !== undefined
      ? (eip7702Auth ?? undefined)
      : smartAccount.authorization && !overrides.sender
        ? await delegationIfNeeded(smartAccount.authorization.account, publicClient, aa.simple7702Account)
        : undefined;
  const op = {
    sender: account.address,
    nonce: await smartAccount.getNonce(),
    callData: await smartAccount.encodeCalls(calls),
    callGasLimit: 100_000n,
    verificationGasLimit: 100_000n,
    preVerificationGas: 60_000n,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    ...fields,
  };
  const hex = (v: bigint | undefined) => `0x${(v ?? 0n).toString(16)}`;
  const res = await api("POST", "/api/paymaster", {
    body: {
      jsonrpc: "2.0",
      id: 1,
      method,
      params: [
        {
          sender: op.sender,
          nonce: hex(op.nonce),
          callData: op.callData,
          callGasLimit: hex(op.callGasLimit),
          verificationGasLimit: hex(op.verificationGasLimit),
          preVerificationGas: hex(op.preVerificationGas),
          maxFeePerGas: hex(op.maxFeePerGas),
          maxPriorityFeePerGas: hex(op.maxPriorityFeePerGas),
          ...(op.factory ? { factory: op.factory, factoryData: op.factoryData } : {}),
          ...(authorization ? { eip7702Auth: rpcAuthorization(authorization) } : {}),
        },
        aa.entryPoint,
        hex(BigInt(deployments.chainId)),
        {},
      ],
    },
  });
  assert.equal(res.status, 200);
  return res.body as {
    result?: {
      paymaster: Address;
      paymasterData: Hex;
      paymasterVerificationGasLimit: Hex;
      paymasterPostOpGasLimit: Hex;
    };
    error?: { code: number; message: string; data: { code: string } };
  };
}

const ethOf = (address: Address) => publicClient.getBalance({ address });
const simpleAccountArtifact = SimpleAccountArtifact as unknown as { abi: readonly unknown[]; bytecode: Hex };

/** An EIP-7702 authorization in its JSON-RPC form (ERC-7769 `eip7702Auth`). */
const rpcAuthorization = (auth: SignedAuthorization) => ({
  address: auth.address,
  chainId: toHex(auth.chainId),
  nonce: toHex(auth.nonce),
  r: auth.r,
  s: auth.s,
  yParity: toHex(auth.yParity ?? 0),
});

/** Deploys a published @account-abstraction/contracts artifact from a funded key; returns its address. */
async function deployArtifact(key: Hex, artifact: { abi: readonly unknown[]; bytecode: Hex }, args: unknown[] = []) {
  const wallet = createWalletClient({
    account: privateKeyToAccount(key),
    chain: publicClient.chain,
    transport: http(stack.rpcUrl),
  });
  const hash = await wallet.deployContract({
    abi: artifact.abi as never,
    bytecode: artifact.bytecode,
    args: args as never,
  });
  return (await publicClient.waitForTransactionReceipt({ hash })).contractAddress as Address;
}

describe("smart accounts: a 0-ETH agent acts on chain through UserOperations", () => {
  let agent: Awaited<ReturnType<typeof selfCustodiedAgent>>;
  const REWARD = 10_000_000n;
  let poster: Awaited<ReturnType<typeof newPoster>>;
  let run: Awaited<ReturnType<typeof openRun>>;
  const receipts: { step: string; txHash: Hex; userOpHash: Hex; gas: bigint }[] = [];

  before(async () => {
    agent = await selfCustodiedAgent(50_000_000n);
    poster = await newPoster();
    run = await openRun({ key: poster.key, address: poster.address }, { reward: REWARD });
  });

  it("stakes (approve + deposit batched), claims, starts and submits with 0 ETH; USDC moves to the base unit", async () => {
    assert.equal(await ethOf(agent.owner.address), 0n);
    const [agentUsdc, vaultUsdc] = await Promise.all([usdcBalance(agent.owner.address), usdcBalance(vault)]);

    const staked = await agent.account.send(actions.stake(agent.agentId, STAKE));
    receipts.push({ step: "stake", ...staked, gas: staked.actualGasUsed });
    assert.equal(await usdcBalance(agent.owner.address), agentUsdc - STAKE);
    assert.equal(await usdcBalance(vault), vaultUsdc + STAKE);

    const runId = BigInt(run.onchainRunId!);
    const escrowBefore = await usdcBalance(escrowAddress);
    for (const [name, calls] of [
      ["claim", actions.claimRun(runId, agent.agentId)],
      ["start", actions.startRun(runId)],
      ["submit", actions.submitRun(runId, keccak256(toHex("deliverable: adds two numbers, with tests")))],
    ] as const) {
      const sent = await agent.account.send(calls);
      receipts.push({ step: name, ...sent, gas: sent.actualGasUsed });
    }
    const onchain = await escrowRun(runId);
    assert.equal(onchain.state, 4, "Submitted");
    assert.equal(onchain.agentId, agent.agentId);
    assert.equal(await usdcBalance(escrowAddress), escrowBefore, "agent actions move no USDC");
    assert.equal(await usdcBalance(agent.owner.address), agentUsdc - STAKE);
    assert.equal(await ethOf(agent.owner.address), 0n, "the agent never held or paid ETH");
    // The EOA now delegates to the canonical Simple7702Account (EIP-7702 designator).
    const code = await publicClient.getCode({ address: agent.owner.address });
    assert.equal(code?.toLowerCase(), `0xef0100${aa.simple7702Account.slice(2)}`.toLowerCase());

    // The poster approves through the API (once its index shows the submission); the reward reaches the agent's
    // own address to the base unit.
    await waitUntil("the submission in the API", async () => {
      const r = await api("GET", `/api/runs/${run.bountyId}`);
      return r.body.run?.state === "SUBMITTED" || r.body.state === "SUBMITTED" || undefined;
    });
    const approved = await step(poster.key, run.bountyId, "approve", "approve-run");
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(await usdcBalance(agent.owner.address), agentUsdc - STAKE + REWARD);
    assert.equal(await ethOf(agent.owner.address), 0n);
  });

  it("requests its stake withdrawal itself", async () => {
    const sent = await agent.account.send(actions.requestWithdrawal(agent.agentId, STAKE));
    receipts.push({ step: "requestWithdrawal", ...sent, gas: sent.actualGasUsed });
    await waitUntil("the withdrawal request in the index", async () => {
      const r = await db.query(
        `select account from ${schema}.stake_event where agent_id = $1 and kind = 'WITHDRAWAL_REQUESTED'`,
        [agent.agentId.toString()],
      );
      return r.rows[0] || undefined;
    }).then((row) => assert.equal(row.account.toLowerCase(), agent.owner.address.toLowerCase()));
  });

  it("insures itself and requests the coverage withdrawal itself; USDC to the base unit", async () => {
    const pool = deployments.contracts.InsurancePool.address;
    const [agentUsdc, poolUsdc] = await Promise.all([usdcBalance(agent.owner.address), usdcBalance(pool)]);
    for (const [name, calls] of [
      ["insure", actions.insure(agent.agentId, 5_000_000n)],
      ["requestCoverageWithdrawal", actions.requestCoverageWithdrawal(agent.agentId, 5_000_000n)],
    ] as const) {
      const sent = await agent.account.send(calls);
      receipts.push({ step: name, ...sent, gas: sent.actualGasUsed });
    }
    assert.equal(await usdcBalance(agent.owner.address), agentUsdc - 5_000_000n);
    assert.equal(await usdcBalance(pool), poolUsdc + 5_000_000n);
    assert.equal(await ethOf(agent.owner.address), 0n);
    const row = await waitUntil("the coverage withdrawal request in the index", async () => {
      const r = await db.query(
        `select account from ${schema}.insurance_event where agent_id = $1 and kind = 'WITHDRAWAL_REQUESTED'`,
        [agent.agentId.toString()],
      );
      return r.rows[0];
    });
    assert.equal(row.account, agent.owner.address.toLowerCase(), "the agent, not the bundler");
  });

  it("attests another agent, paying standard x402 (EIP-3009) from its delegated address; USDC to the base unit", async () => {
    const subject = await registerAgent();
    const recipient = (await api("GET", "/api/config")).body.platformRecipient as Address;
    const before = { agent: await usdcBalance(agent.owner.address), platform: await usdcBalance(recipient) };
    const paidFetch = wrapFetchWithPaymentFromConfig(fetch, {
      schemes: [{ network: "eip155:84532", client: new ExactEvmScheme(agent.owner) }],
      spendControls: {
        allowedAssets: [{ network: "eip155:84532", asset: deployments.usdc.address, maxAmountPerPayment: "5000" }],
      },
    });
    // The client dates its authorization by the wall clock; keep it in step with the chain's (tests move it).
    const offset = Number((await publicClient.getBlock()).timestamp * 1000n) - Date.now();
    const realNow = Date.now;
    if (offset > 30_000) Date.now = () => realNow() + offset;
    let res: Response;
    try {
      res = await paidFetch(`${stack.apiUrl}/api/attestations/create`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-forwarded-for": `10.77.${Math.floor(Math.random() * 250)}.9`,
        },
        body: JSON.stringify({
          attestorId: Number(agent.agentId),
          subjectId: subject.agentId,
          category: "quality",
          rating: 5,
          comment: "paid from a smart account",
        }),
      });
    } finally {
      Date.now = realNow;
    }
    const body = await res.json();
    assert.equal(res.status, 201, JSON.stringify(body));
    assert.equal(body.attestation.attestorId, Number(agent.agentId));
    assert.equal(await usdcBalance(agent.owner.address), before.agent - 5_000n);
    assert.equal(await usdcBalance(recipient), before.platform + 5_000n);
    assert.equal(await ethOf(agent.owner.address), 0n);
  });

  it("signs the API's signed actions (SIWE) as its delegated address, through the SDK", async () => {
    const hub = new AgentHub({ apiUrl: stack.apiUrl, headers: { "x-forwarded-for": freshIp() } });
    const profile = await hub.agents.update(
      Number(agent.agentId),
      { description: "delegated to Simple7702Account" },
      agent.account.signer,
    );
    assert.equal(profile.description, "delegated to Simple7702Account");
    assert.equal(agent.account.signer.address, agent.owner.address);
  });

  it("the indexer shows the agent as the actor, never the bundler", async () => {
    const runId = run.onchainRunId!;
    const rows = await waitUntil("the three agent run events in the index", async () => {
      const r = await db.query<{ kind: string; actor: string; tx_hash: string }>(
        `select kind, actor, tx_hash from ${schema}.run_event where run_id = $1 and kind in ('CLAIMED', 'STARTED', 'SUBMITTED')
          order by block_number, log_index`,
        [runId],
      );
      return r.rows.length === 3 ? r.rows : undefined;
    });
    const bundlers = new Set<string>();
    for (const row of rows) {
      assert.equal(row.actor, agent.owner.address.toLowerCase(), row.kind);
      const tx = await publicClient.getTransaction({ hash: row.tx_hash as Hex });
      bundlers.add(tx.from.toLowerCase());
      assert.notEqual(tx.from.toLowerCase(), row.actor, "the transaction was sent by the bundler");
    }
    // Every sponsored operation is indexed with its sender, bundler and what it cost the paymaster.
    const ops = await waitUntil("the sponsored operations in the index", async () => {
      const r = await db.query(
        `select sender, bundler, success, actual_gas_cost::text from ${schema}.user_operation where sender = $1`,
        [agent.owner.address.toLowerCase()],
      );
      return r.rows.length === receipts.length ? r.rows : undefined;
    });
    for (const op of ops) {
      assert.equal(op.success, true);
      assert.ok(bundlers.has(op.bundler) || op.bundler !== op.sender);
      assert.ok(BigInt(op.actual_gas_cost) > 0n);
    }
  });

  it("a replayed UserOperation fails", async () => {
    const first = receipts[1]!; // the claim
    const original = (await fetch(bundlerUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getUserOperationByHash", params: [first.userOpHash] }),
    }).then((r) => r.json())) as { result: { userOperation: Record<string, unknown>; entryPoint: string } };
    assert.ok(original.result?.userOperation, "the bundler knows the operation");
    const replay = (await fetch(bundlerUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "eth_sendUserOperation",
        params: [original.result.userOperation, aa.entryPoint],
      }),
    }).then((r) => r.json())) as { error?: { message: string } };
    assert.ok(replay.error, "the bundler refuses the replay");
    assert.match(replay.error.message, /nonce|AA25|already/i);
    // Straight to the EntryPoint, without a bundler in between: the account's nonce is used (AA25).
    const packed = toPackedUserOperation(formatUserOperation(original.result.userOperation as never));
    await assert.rejects(
      publicClient.simulateContract({
        address: aa.entryPoint,
        abi: entryPoint08Abi,
        functionName: "handleOps",
        args: [[packed], poster.address],
        account: poster.address,
      }),
      /AA25/,
    );
    const onchain = await escrowRun(BigInt(run.onchainRunId!));
    assert.equal(onchain.state, 7, "still Completed: nothing ran twice");
  });

  it("writes the gas of each step (bench reads them too)", () => {
    assert.ok(receipts[0]!.gas > receipts[1]!.gas, "the first operation also delegates the EOA");
    for (const r of receipts) assert.ok(r.gas > 50_000n && r.gas < 400_000n, `${r.step}: ${r.gas}`);
  });
});

describe("smart accounts: a fresh SimpleAccount from the canonical factory", () => {
  it("holding the agent's token, it is deployed by its first sponsored operation and acts with 0 ETH", async () => {
    const agent = await selfCustodiedAgent(0n);
    const smart = await agentAccount({
      owner: agent.owner,
      client: publicClient,
      bundlerUrl,
      apiUrl: stack.apiUrl,
      accountAbstraction: aa,
      kind: "smart-account",
    });
    assert.notEqual(smart.address, agent.owner.address);
    assert.equal(await publicClient.getCode({ address: smart.address }), undefined, "not deployed yet");
    // The owner hands the token to its smart account (an ordinary ERC-721 transfer, its own gas), and USDC arrives.
    await faucet(agent.owner.address, 0n, 10n ** 17n);
    const wallet = createWalletClient({
      account: agent.owner,
      chain: publicClient.chain,
      transport: http(stack.rpcUrl),
    });
    const hash = await wallet.writeContract({
      address: deployments.contracts.AgentIdentity.address,
      abi: AgentIdentityAbi,
      functionName: "transferFrom",
      args: [agent.owner.address, smart.address, agent.agentId],
    });
    await publicClient.waitForTransactionReceipt({ hash });
    await faucet(smart.address, STAKE);
    await waitUntil("the smart account as owner in the index", async () => {
      const r = await db.query(`select 1 from ${schema}.agent where id = $1 and lower(owner) = lower($2)`, [
        agent.agentId.toString(),
        smart.address,
      ]);
      return r.rowCount === 1;
    });
    // The old owner's key (still the smart account's signer) cannot be sponsored for the agent as itself.
    const asEoa = await askPaymaster(agent.account, actions.requestWithdrawal(agent.agentId, 1n));
    assert.equal(asEoa.error?.data.code, "NOT_AGENT_ACCOUNT", JSON.stringify(asEoa));

    const first = await smart.send(actions.stake(agent.agentId, STAKE));
    assert.ok((await publicClient.getCode({ address: smart.address }))?.length, "deployed by its first operation");
    assert.equal(await usdcBalance(smart.address), 0n);
    assert.equal(
      await publicClient.readContract({
        address: vault,
        abi: StakeVaultAbi,
        functionName: "stakeOf",
        args: [agent.agentId],
      }),
      STAKE,
    );
    const later = await smart.send(actions.requestWithdrawal(agent.agentId, STAKE));
    assert.ok(first.actualGasUsed > later.actualGasUsed, "the first operation also deploys the account");
    assert.equal(await ethOf(smart.address), 0n);
    // Its code is the factory's ERC1967Proxy, which the paymaster recognizes by the code cut out of the factory's.
    const factoryCode = await publicClient.getCode({ address: aa.simpleAccountFactory });
    assert.equal(await publicClient.getCode({ address: smart.address }), proxyRuntimeOf(factoryCode!));

    // The API's signed actions (SIWE) through the SDK: SimpleAccount has no ERC-1271, its owner's key signs for it.
    const hub = new AgentHub({ apiUrl: stack.apiUrl, headers: { "x-forwarded-for": freshIp() } });
    const profile = await hub.agents.update(
      Number(agent.agentId),
      { description: "runs on a SimpleAccount" },
      smart.signer,
    );
    assert.equal(profile.description, "runs on a SimpleAccount");
    assert.equal(profile.ownerAddress.toLowerCase(), smart.address.toLowerCase());
    // Its owner key signing as itself is not the agent's owner any more.
    await assert.rejects(
      hub.agents.update(Number(agent.agentId), { description: "as the EOA" }, agent.owner),
      (error) => isAgentHubError(error, "NOT_AGENT_OWNER"),
    );
    await assert.rejects(smart.signer.signTypedData({} as never), /no ERC-1271/);

    // Upgraded by its owner (UUPS) to an implementation of its own, it is no longer sponsored.
    const implementation = await deployArtifact(agent.key, simpleAccountArtifact, [aa.entryPoint]);
    const upgrade = await wallet.writeContract({
      address: smart.address,
      abi: parseAbi(["function upgradeToAndCall(address implementation, bytes data) payable"]),
      functionName: "upgradeToAndCall",
      args: [implementation, "0x"],
    });
    assert.equal((await publicClient.waitForTransactionReceipt({ hash: upgrade })).status, "success");
    const upgraded = await askPaymaster(smart, actions.requestWithdrawal(agent.agentId, 1n));
    assert.equal(upgraded.error?.data.code, "ACCOUNT_NOT_SUPPORTED", JSON.stringify(upgraded));
    assert.match(upgraded.error!.message, /upgraded to/);
    // ...and its owner's key no longer signs for it.
    await assert.rejects(
      hub.agents.update(Number(agent.agentId), { description: "after the upgrade" }, smart.signer),
      (error) => isAgentHubError(error, "INVALID_SIGNATURE"),
    );
  });
});

describe("smart accounts: the paymaster refuses what it must not sponsor", () => {
  it("a foreign call: USDC sent to someone else (CALL_NOT_ALLOWED), through the standard client too", async () => {
    const agent = await selfCustodiedAgent(5_000_000n);
    const thief = privateKeyToAccount(generatePrivateKey()).address;
    const transfer = {
      to: deployments.usdc.address,
      data: encodeFunctionData({ abi: TestUSDCAbi, functionName: "transfer", args: [thief, 5_000_000n] }),
    };
    const answer = await askPaymaster(agent.account, [transfer]);
    assert.equal(answer.error?.data.code, "CALL_NOT_ALLOWED", JSON.stringify(answer));
    // Approving anyone but AgentHub's contracts, or calling a contract that is not AgentHub's, is refused too.
    const approve = {
      to: deployments.usdc.address,
      data: encodeFunctionData({ abi: TestUSDCAbi, functionName: "approve", args: [thief, 1n] }),
    };
    assert.equal(
      (await askPaymaster(agent.account, [...actions.stake(agent.agentId, 1n), approve])).error?.data.code,
      "CALL_NOT_ALLOWED",
    );
    assert.equal((await askPaymaster(agent.account, [{ to: thief, data: "0x" }])).error?.data.code, "CALL_NOT_ALLOWED");
    await assert.rejects(agent.account.send([transfer]), /CALL_NOT_ALLOWED|not a sponsored/);
    // The same transfer hidden in the init code (7702 initialization, or another factory) is refused as well.
    const hidden = await agent.account.client.account!.encodeCalls([transfer]);
    const stake = actions.stake(agent.agentId, 1n);
    for (const factory of ["0x7702", thief, aa.simpleAccountFactory] as const) {
      const answer = await askPaymaster(agent.account, stake, "pm_getPaymasterStubData", {
        factory,
        factoryData: hidden,
      });
      assert.equal(answer.error?.data.code, "CALL_NOT_ALLOWED", `${factory}: ${JSON.stringify(answer)}`);
    }
    assert.equal(await usdcBalance(agent.owner.address), 5_000_000n);
    assert.equal(await ethOf(agent.owner.address), 0n);
  });

  it("a sender not running canonical account code (ACCOUNT_NOT_SUPPORTED): an EOA delegating elsewhere, a custom contract holding the token", async () => {
    const agent = await selfCustodiedAgent(STAKE);
    await faucet(agent.owner.address, 0n, 10n ** 17n);
    // A Simple7702Account of the agent's own at another address: the same account code, not the canonical one.
    const copy = await deployArtifact(agent.key, simple7702AccountArtifact);
    const request = actions.requestWithdrawal(agent.agentId, 1n);
    const refused = async (answer: Awaited<ReturnType<typeof askPaymaster>>, why: RegExp) => {
      assert.equal(answer.error?.data.code, "ACCOUNT_NOT_SUPPORTED", JSON.stringify(answer));
      assert.equal(answer.error?.code, -32003);
      assert.match(answer.error!.message, why);
    };
    const toCopy = (nonce: number) =>
      agent.owner.signAuthorization({ address: copy, chainId: deployments.chainId, nonce });

    // An operation whose authorization names another implementation.
    await refused(
      await askPaymaster(agent.account, request, "pm_getPaymasterStubData", { eip7702Auth: await toCopy(1) }),
      /authorization to/,
    );
    // The EOA delegates to the copy itself (its own type-4 transaction).
    const wallet = createWalletClient({
      account: agent.owner,
      chain: publicClient.chain,
      transport: http(stack.rpcUrl),
    });
    const nonce = await publicClient.getTransactionCount({ address: agent.owner.address });
    const delegated = await wallet.sendTransaction({
      to: agent.owner.address,
      authorizationList: [await toCopy(nonce + 1)],
    });
    await publicClient.waitForTransactionReceipt({ hash: delegated });
    assert.equal(
      await publicClient.getCode({ address: agent.owner.address }),
      `0xef0100${copy.slice(2).toLowerCase()}`,
    );
    await refused(
      await askPaymaster(agent.account, request, "pm_getPaymasterStubData", { eip7702Auth: null }),
      /delegates to/,
    );
    await refused(
      await askPaymaster(agent.account, request, "pm_getPaymasterData", { eip7702Auth: null }),
      /delegates to/,
    );
    // Delegating back to Simple7702Account in the operation itself is sponsored (the agent stakes in it).
    const back = await askPaymaster(agent.account, actions.stake(agent.agentId, STAKE));
    assert.ok(back.result, JSON.stringify(back));

    // The token held by a contract of its own code (the copy, deployed as an ordinary contract).
    const transfer = await wallet.writeContract({
      address: deployments.contracts.AgentIdentity.address,
      abi: AgentIdentityAbi,
      functionName: "transferFrom",
      args: [agent.owner.address, copy, agent.agentId],
    });
    await publicClient.waitForTransactionReceipt({ hash: transfer });
    await waitUntil("the contract as owner in the index", async () => {
      const r = await db.query(`select 1 from ${schema}.agent where id = $1 and lower(owner) = lower($2)`, [
        agent.agentId.toString(),
        copy,
      ]);
      return r.rowCount === 1 || undefined;
    });
    await refused(
      await askPaymaster(agent.account, request, "pm_getPaymasterStubData", { sender: copy }),
      /code of its own/,
    );
    await refused(
      await askPaymaster(agent.account, request, "pm_getPaymasterData", { sender: copy }),
      /code of its own/,
    );
  });

  it("an approval for Simple7702Account fails on chain once the authorization is swapped for another implementation (AA34)", async () => {
    const agent = await selfCustodiedAgent(STAKE);
    // Whoever submits the bundle (here a funded key calling the EntryPoint itself, as any bundler could).
    const submitterKey = generatePrivateKey();
    const submitter = privateKeyToAccount(submitterKey);
    await faucet(submitter.address, 0n, 10n ** 17n);
    const copy = await deployArtifact(submitterKey, simple7702AccountArtifact);
    const client = agent.account.client;
    const canonical = (await delegationIfNeeded(agent.owner, publicClient, aa.simple7702Account))!;
    // Prepared with the canonical authorization: the API approves it (stub, bundler estimate, signature).
    const prepared = await client.prepareUserOperation({
      account: client.account!,
      calls: actions.stake(agent.agentId, STAKE),
      authorization: canonical,
    });
    const op = prepared as unknown as UserOperation<"0.8">;
    const packed = toPackedUserOperation({ ...op, signature: await client.account!.signUserOperation(op) });
    const wallet = createWalletClient({ account: submitter, chain: publicClient.chain, transport: http(stack.rpcUrl) });
    const handleOps = (authorization: SignedAuthorization) =>
      ({
        address: aa.entryPoint,
        abi: entryPoint08Abi,
        functionName: "handleOps",
        args: [[packed], submitter.address],
        authorizationList: [authorization],
        account: submitter,
      }) as const;
    const deposit = () =>
      publicClient.readContract({
        address: aa.entryPoint,
        abi: entryPoint08Abi,
        functionName: "balanceOf",
        args: [aa.paymaster.address],
      });
    const depositBefore = await deposit();

    const swapped = await agent.owner.signAuthorization({ address: copy, chainId: deployments.chainId, nonce: 0 });
    await assert.rejects(publicClient.simulateContract(handleOps(swapped)), /AA34/);
    // Mined anyway (the local node mines it and answers the send with the revert): the swap takes effect, as
    // authorizations apply even when their transaction reverts, and nothing else does.
    await assert.rejects(wallet.writeContract({ ...handleOps(swapped), gas: 1_000_000n }), /AA34/);
    const mined = (await publicClient.getBlock({ includeTransactions: true })).transactions.find(
      (tx) => tx.from.toLowerCase() === submitter.address.toLowerCase(),
    );
    assert.ok(mined, "the transaction is on chain");
    assert.equal((await publicClient.getTransactionReceipt({ hash: mined.hash })).status, "reverted");
    assert.equal(
      await publicClient.getCode({ address: agent.owner.address }),
      `0xef0100${copy.slice(2).toLowerCase()}`,
    );
    assert.equal(await usdcBalance(agent.owner.address), STAKE);
    assert.equal(await deposit(), depositBefore, "the paymaster paid nothing");

    // The same approved operation with an authorization back to Simple7702Account goes through, sponsored.
    const back = await agent.owner.signAuthorization({
      address: aa.simple7702Account,
      chainId: deployments.chainId,
      nonce: 1,
    });
    const ok = await wallet.writeContract({ ...handleOps(back), gas: 1_000_000n });
    assert.equal((await publicClient.waitForTransactionReceipt({ hash: ok })).status, "success");
    assert.equal(await usdcBalance(agent.owner.address), 0n, "staked");
    assert.ok((await deposit()) < depositBefore, "paid by the paymaster");
    assert.equal(await ethOf(agent.owner.address), 0n);
  });

  it("malformed or misdirected requests get JSON-RPC errors with stable codes, never a 500", async () => {
    const rpc = async (body: unknown) => {
      const res = await api("POST", "/api/paymaster", { body });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.error as { code: number; message: string; data: { code: string } };
    };
    const op = { sender: aa.paymaster.address, nonce: "0x0", callData: "0x" };
    const chainId = `0x${deployments.chainId.toString(16)}`;
    const method = "pm_getPaymasterStubData";
    assert.equal(
      (await rpc({ jsonrpc: "2.0", id: 1, method, params: [op, deployments.usdc.address, chainId, {}] })).data.code,
      "UNSUPPORTED_ENTRY_POINT",
    );
    assert.equal(
      (await rpc({ jsonrpc: "2.0", id: 2, method, params: [op, aa.entryPoint, "0x1", {}] })).data.code,
      "UNSUPPORTED_CHAIN",
    );
    const invalid = await rpc({
      jsonrpc: "2.0",
      id: 3,
      method,
      params: [{ ...op, nonce: "seven" }, aa.entryPoint, chainId],
    });
    assert.equal(invalid.code, -32602);
    assert.equal(invalid.data.code, "INVALID_USER_OPERATION");
    assert.equal((await rpc({ jsonrpc: "2.0", id: 4, method: "eth_sendRawTransaction", params: [] })).code, -32601);
    assert.equal((await rpc({ hello: "world" })).code, -32600);
    assert.equal(
      (await rpc({ jsonrpc: "2.0", id: 5, method, params: [op, aa.entryPoint, chainId] })).data.code,
      "CALL_NOT_ALLOWED",
    );
  });

  it("another agent's account (NOT_AGENT_ACCOUNT) and a frozen agent (AGENT_FROZEN)", async () => {
    const agent = await selfCustodiedAgent(40_000_000n);
    const stranger = await selfCustodiedAgent(0n);
    const foreign = await askPaymaster(stranger.account, actions.requestWithdrawal(agent.agentId, 1n));
    assert.equal(foreign.error?.data.code, "NOT_AGENT_ACCOUNT", JSON.stringify(foreign));

    await agent.account.send(actions.stake(agent.agentId, 40_000_000n));
    const slash = await api("POST", `/api/agents/${agent.agentId}/slash`, {
      headers: adminHeaders(),
      body: { reason: "sponsorship test", percentage: 50 },
    });
    assert.equal(slash.status, 200, JSON.stringify(slash.body));
    assert.equal(slash.body.status, "FROZEN");
    // Status comes from indexed chain state: the slash is refused as soon as the indexer has it.
    const frozen = await waitUntil("the slash in the index", async () => {
      const answer = await askPaymaster(agent.account, actions.requestWithdrawal(agent.agentId, 1n));
      return answer.error?.data.code === "AGENT_FROZEN" ? answer : undefined;
    });
    assert.match(frozen.error!.message, /FROZEN/);
    await assert.rejects(agent.account.send(actions.requestWithdrawal(agent.agentId, 1n)), /AGENT_FROZEN|FROZEN/);
  });

  it("beyond the agent's budget (AGENT_BUDGET_EXCEEDED); the budget is in /metrics", async () => {
    const agent = await selfCustodiedAgent(STAKE);
    const original = await api("GET", "/api/paymaster/budget", { headers: adminHeaders() });
    assert.equal(original.status, 200, JSON.stringify(original.body));
    const { agentBudgetWei, globalBudgetWei, periodSeconds } = original.body;
    try {
      // Enough for the first stub check, far less than one operation's maximum cost.
      const set = await api("PUT", "/api/paymaster/budget", {
        headers: adminHeaders(),
        body: { agentBudgetWei: "1000", globalBudgetWei, periodSeconds },
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const metrics = await fetch(`${stack.apiUrl}/metrics`, {
        headers: { authorization: `Bearer ${stack.secrets.metricsToken}` },
      }).then((r) => r.text());
      assert.match(metrics, /agenthub_paymaster_budget_wei\{scope="agent"\} 1000\n/);
      assert.match(metrics, /agenthub_paymaster_deposit_wei \d/);
      assert.match(metrics, /agenthub_paymaster_deposit_low 0\n/);
      await assert.rejects(agent.account.send(actions.stake(agent.agentId, STAKE)), /AGENT_BUDGET_EXCEEDED/);
      assert.equal(await usdcBalance(agent.owner.address), STAKE, "nothing ran");
      const refused = await askPaymaster(agent.account, actions.stake(agent.agentId, STAKE), "pm_getPaymasterData");
      assert.equal(refused.error?.data.code, "AGENT_BUDGET_EXCEEDED", JSON.stringify(refused));
      assert.equal(refused.error?.code, -32003);
      // The global budget binds as well, whatever the agent's.
      await api("PUT", "/api/paymaster/budget", {
        headers: adminHeaders(),
        body: { agentBudgetWei, globalBudgetWei: "1000", periodSeconds },
      });
      const global = await askPaymaster(agent.account, actions.stake(agent.agentId, STAKE), "pm_getPaymasterData");
      assert.equal(global.error?.data.code, "GLOBAL_BUDGET_EXCEEDED", JSON.stringify(global));
      const unauthorized = await api("PUT", "/api/paymaster/budget", {
        body: { agentBudgetWei: "0", globalBudgetWei: "0", periodSeconds: 60 },
      });
      assert.equal(unauthorized.status, 401);
    } finally {
      const restored = await api("PUT", "/api/paymaster/budget", {
        headers: adminHeaders(),
        body: { agentBudgetWei, globalBudgetWei, periodSeconds },
      });
      assert.equal(restored.status, 200);
    }
    // Budgets hold under concurrency: room for exactly 3 more operations in the global budget, 8 agents asking at
    // once (each its own account's next operation; one agent's parallel requests share one nonce).
    const maxFeePerGas = (await publicClient.estimateFeesPerGas()).maxFeePerGas;
    const maxCost = (100_000n + 100_000n + 60_000n + 60_000n) * maxFeePerGas; // limits askPaymaster uses + ours
    const others = await Promise.all(Array.from({ length: 8 }, () => selfCustodiedAgent(STAKE)));
    try {
      const state = await api("GET", "/api/paymaster/budget", { headers: adminHeaders() });
      const room = BigInt(state.body.spentWei) + 3n * maxCost + maxCost / 2n;
      const set = await api("PUT", "/api/paymaster/budget", {
        headers: adminHeaders(),
        body: { agentBudgetWei, globalBudgetWei: room.toString(), periodSeconds },
      });
      assert.equal(set.status, 200);
      const answers = await Promise.all(
        others.map((other) =>
          askPaymaster(other.account, actions.stake(other.agentId, STAKE), "pm_getPaymasterData", { maxFeePerGas }),
        ),
      );
      const codes = answers.map((a) => (a.result ? "sponsored" : a.error?.data.code)).sort();
      assert.deepEqual(codes, [...Array(5).fill("GLOBAL_BUDGET_EXCEEDED"), ...Array(3).fill("sponsored")]);
    } finally {
      await api("PUT", "/api/paymaster/budget", {
        headers: adminHeaders(),
        body: { agentBudgetWei, globalBudgetWei, periodSeconds },
      });
    }
    // Within budget again, the same operation goes through.
    await agent.account.send(actions.stake(agent.agentId, STAKE));
    assert.equal(await usdcBalance(agent.owner.address), 0n);
  });
});

describe("smart accounts: the paymaster pays only what an operation needs, for staked agents (issue 23)", () => {
  it("refuses an inflated preVerificationGas; with the most it signs, whoever calls handleOps gains next to nothing", async () => {
    const agent = await selfCustodiedAgent(STAKE);
    await agent.account.send(actions.stake(agent.agentId, STAKE)); // delegated and staked
    const calls = actions.requestWithdrawal(agent.agentId, 1n);
    const fees = await publicClient.estimateFeesPerGas();
    const priced = { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
    // The attack: gas limits within the old 2M total, almost all of it preVerificationGas, which the EntryPoint
    // pays to the beneficiary whatever the operation uses.
    const inflated = await askPaymaster(agent.account, calls, "pm_getPaymasterData", {
      ...priced,
      preVerificationGas: 1_800_000n,
      callGasLimit: 60_000n,
      verificationGasLimit: 60_000n,
    });
    assert.equal(inflated.error?.data.code, "GAS_LIMIT_TOO_HIGH", JSON.stringify(inflated));
    const cap = BigInt(/preVerificationGas \d+ is over (\d+)/.exec(inflated.error!.message)?.[1] ?? "0");
    assert.ok(cap > 50_000n && cap < 80_000n, `preVerificationGas cap ${cap} for a one-call operation`);
    // Verification and call gas are capped per account kind and per call.
    for (const [field, value] of [
      ["verificationGasLimit", 100_001n],
      ["callGasLimit", 100_001n],
    ] as const) {
      const answer = await askPaymaster(agent.account, calls, "pm_getPaymasterData", { ...priced, [field]: value });
      assert.equal(answer.error?.data.code, "GAS_LIMIT_TOO_HIGH", `${field}: ${JSON.stringify(answer)}`);
      assert.match(answer.error!.message, new RegExp(field));
    }

    // The most the policy signs for this operation, sent by an attacker calling the EntryPoint as beneficiary.
    const smartAccount = agent.account.client.account!;
    const nonce = await smartAccount.getNonce(); // a fresh nonce key each call (viem): read once
    const limits = { preVerificationGas: cap, callGasLimit: 100_000n, verificationGasLimit: 100_000n };
    const approved = await askPaymaster(agent.account, calls, "pm_getPaymasterData", { ...priced, ...limits, nonce });
    assert.ok(approved.result, JSON.stringify(approved));
    const op = {
      sender: agent.account.address,
      nonce,
      callData: await smartAccount.encodeCalls(calls),
      ...limits,
      ...priced,
      paymaster: approved.result.paymaster,
      paymasterData: approved.result.paymasterData,
      paymasterVerificationGasLimit: BigInt(approved.result.paymasterVerificationGasLimit),
      paymasterPostOpGasLimit: BigInt(approved.result.paymasterPostOpGasLimit),
      signature: "0x",
    } as UserOperation<"0.8">;
    const packed = toPackedUserOperation({ ...op, signature: await smartAccount.signUserOperation(op) });
    const attackerKey = generatePrivateKey();
    const attacker = privateKeyToAccount(attackerKey);
    await faucet(attacker.address, 0n, 10n ** 17n);
    const deposit = () =>
      publicClient.readContract({
        address: aa.entryPoint,
        abi: entryPoint08Abi,
        functionName: "balanceOf",
        args: [aa.paymaster.address],
      });
    const [depositBefore, attackerBefore] = await Promise.all([deposit(), ethOf(attacker.address)]);
    const wallet = createWalletClient({ account: attacker, chain: publicClient.chain, transport: http(stack.rpcUrl) });
    const hash = await wallet.writeContract({
      address: aa.entryPoint,
      abi: entryPoint08Abi,
      functionName: "handleOps",
      args: [[packed], attacker.address],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, "success");
    const [depositAfter, attackerAfter] = await Promise.all([deposit(), ethOf(attacker.address)]);
    const paid = depositBefore - depositAfter;
    const txFee = receipt.gasUsed * receipt.effectiveGasPrice;
    // To the wei: what left the deposit reached the beneficiary, who paid the bundle transaction's fee.
    assert.equal(attackerAfter - attackerBefore, paid - txFee);
    // The beneficiary's margin is a bundler's ordinary one (the size estimate's slack and the unused-gas penalty),
    // not the 1.7M gas the inflated operation would have paid.
    const gained = paid - txFee;
    assert.ok(
      gained < 60_000n * fees.maxFeePerGas,
      `beneficiary gained ${gained} wei = ${gained / fees.maxFeePerGas} gas`,
    );
  });

  it("a stranger asking for an agent's account cannot use up its budget: only the account's next operation is signed", async () => {
    const agent = await selfCustodiedAgent(STAKE);
    await agent.account.send(actions.stake(agent.agentId, STAKE));
    const original = await api("GET", "/api/paymaster/budget", { headers: adminHeaders() });
    const { agentBudgetWei, globalBudgetWei, periodSeconds } = original.body;
    const maxFeePerGas = (await publicClient.estimateFeesPerGas()).maxFeePerGas;
    const maxCost = (100_000n + 100_000n + 60_000n + 60_000n) * maxFeePerGas; // limits askPaymaster uses + ours
    const calls = actions.requestWithdrawal(agent.agentId, 1n);
    try {
      const set = await api("PUT", "/api/paymaster/budget", {
        headers: adminHeaders(),
        body: { agentBudgetWei: (4n * maxCost).toString(), globalBudgetWei, periodSeconds },
      });
      assert.equal(set.status, 200);
      // The stranger only sends HTTP requests naming the agent's account (it can sign nothing for it), here for six
      // nonce keys: each is approved, and each supersedes the last, so it holds one operation's cost at most...
      for (const key of [1n, 2n, 3n, 4n, 5n, 6n]) {
        const answer = await askPaymaster(agent.account, calls, "pm_getPaymasterData", {
          nonce: key << 64n,
          maxFeePerGas,
        });
        assert.ok(answer.result, JSON.stringify(answer));
      }
      // ...and approvals are not collected ahead for later nonces of a key.
      const next = await agent.account.client.account!.getNonce({ key: 0n });
      const ahead = await askPaymaster(agent.account, calls, "pm_getPaymasterData", { nonce: next + 1n, maxFeePerGas });
      assert.equal(ahead.error?.data.code, "NONCE_NOT_NEXT", JSON.stringify(ahead));
      // The agent's own operation goes through.
      const sent = await agent.account.send(calls); // throws unless sponsored and executed
      assert.ok(sent.actualGasCost > 0n);
    } finally {
      await api("PUT", "/api/paymaster/budget", {
        headers: adminHeaders(),
        body: { agentBudgetWei, globalBudgetWei, periodSeconds },
      });
    }
  });

  it("an agent below the minimum stake is sponsored only to stake it from USDC it holds (AGENT_NOT_STAKED)", async () => {
    const agent = await selfCustodiedAgent(STAKE - 1n);
    const code = async (calls: { to: Address; data: Hex }[]) => {
      const answer = await askPaymaster(agent.account, calls, "pm_getPaymasterData");
      return answer.result ? "sponsored" : answer.error?.data.code;
    };
    assert.equal(await code(actions.requestWithdrawal(agent.agentId, 1n)), "AGENT_NOT_STAKED");
    assert.equal(await code(actions.stake(agent.agentId, STAKE - 1n)), "AGENT_NOT_STAKED", "below the minimum");
    assert.equal(await code(actions.stake(agent.agentId, STAKE)), "AGENT_NOT_STAKED", "more than it holds");
    await faucet(agent.owner.address, 1n);
    assert.equal(await code(actions.stake(agent.agentId, STAKE)), "sponsored");
    await agent.account.send(actions.stake(agent.agentId, STAKE));
    assert.equal(await usdcBalance(agent.owner.address), 0n);
    assert.equal(await code(actions.requestWithdrawal(agent.agentId, 1n)), "sponsored");
  });
});

describe("smart accounts: custody of the paymaster", () => {
  it("is owned by the timelock and approves with its own key, not the relayer's", async () => {
    const read = (functionName: "owner" | "verifyingSigner" | "entryPoint") =>
      publicClient.readContract({ address: aa.paymaster.address, abi: VerifyingPaymasterAbi, functionName });
    assert.equal(await read("owner"), deployments.contracts.AgentHubTimelock.address);
    assert.equal(await read("entryPoint"), aa.entryPoint);
    const signer = await read("verifyingSigner");
    assert.equal(signer, privateKeyToAccount(stack.env.PAYMASTER_SIGNER_KEY as Hex).address);
    assert.notEqual(signer, privateKeyToAccount(stack.env.RELAYER_PRIVATE_KEY as Hex).address);
    // With the relayer's key as the paymaster's, the API refuses to start (the stack's own environment).
    assert.throws(
      () => loadApiEnv({ ...stack.env, PAYMASTER_SIGNER_KEY: stack.env.RELAYER_PRIVATE_KEY }),
      /PAYMASTER_SIGNER_KEY: is RELAYER_PRIVATE_KEY/,
    );
    const state = await api("GET", "/api/paymaster/budget", { headers: adminHeaders() });
    assert.equal(state.body.signer, signer);
    assert.equal(state.body.depositWei.length > 18, true, "funded at deployment (100 ETH locally)");
  });
});

describe("smart accounts: the bundler service", () => {
  it("listens on loopback only (Alto binds 0.0.0.0 unless the stack's preload moves it)", () => {
    const port = Number(new URL(bundlerUrl).port);
    const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
    // Listening sockets (state 0A) on that port, from the kernel's own tables.
    const listening = ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line) => line.trim().split(/\s+/))
        .filter((cols) => cols[1]?.endsWith(`:${hexPort}`) && cols[3] === "0A")
        .map((cols) => cols[1]!.split(":")[0]!),
    );
    assert.deepEqual(listening, ["0100007F"], "127.0.0.1 only");
  });
});

describe("smart accounts: the paymaster's deposit floor alarm", () => {
  it("logs an error and sets agenthub_paymaster_deposit_low while the deposit is below the floor", async () => {
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      lines.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stdout.write;
    let running: Awaited<ReturnType<typeof startApi>> | undefined;
    try {
      // The local deposit is 100 ETH; this process's floor is 1,000 ETH.
      const env = loadApiEnv({
        ...stack.env,
        JOBS_ENABLED: "false",
        LOG_LEVEL: "error",
        PAYMASTER_DEPOSIT_FLOOR_WEI: (10n ** 21n).toString(),
      });
      running = await startApi(env, 0);
      await waitUntil("the floor alarm in the log", async () =>
        lines.some((l) => l.includes("paymaster deposit below its floor")),
      );
      const metrics = await fetch(`${running.url}/metrics`, {
        headers: { authorization: `Bearer ${stack.secrets.metricsToken}` },
      }).then((r) => r.text());
      assert.match(metrics, /agenthub_paymaster_deposit_low 1\n/);
      const alarm = JSON.parse(lines.find((l) => l.includes("paymaster deposit below its floor"))!);
      assert.equal(alarm.level, 50, "logged as an error");
      assert.equal(alarm.floorWei, (10n ** 21n).toString());
    } finally {
      process.stdout.write = write;
      await running?.close();
    }
  });
});

after(async () => {
  await db.end();
});
