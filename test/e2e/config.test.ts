// GET /api/config is the deployment's truth: every address a client needs and every parameter governance can change,
// read from the chain. A fee change executed through the Governor and the timelock (chain time moved) shows within
// seconds; a second proposal of the same batch restores the fee, so later files see the deployment's default.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AgentHubGovernorAbi, AgentHubTokenAbi, RunEscrowAbi, StakeVaultAbi } from "@agenthub/common/generated/abis";
import { type Address, encodeFunctionData, type Hex, keccak256, parseAbi, parseEther, toBytes } from "viem";
import { CANONICAL_ERC8004 } from "../../ignition/erc8004.ts";
import { devAccounts } from "../../scripts/lib/chain.ts";
import { faucet, walletFromKey } from "../support/agents.ts";
import {
  api,
  chain,
  db,
  deployments,
  increaseTime,
  newWallet,
  publicClient,
  stack,
  waitUntil,
} from "../support/stack.ts";

after(() => db.end());

const governor = deployments.contracts.AgentHubGovernor.address;
const escrow = deployments.contracts.RunEscrow.address;

async function config() {
  const res = await api("GET", "/api/config");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function mined(hash: Hex) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, "success");
  return receipt;
}

describe("/api/config", () => {
  it("names every contract a client needs and the parameters as the chain has them", async () => {
    const c = await config();
    assert.equal(c.chainId, deployments.chainId);
    for (const [name, d] of Object.entries(deployments.contracts)) assert.equal(c.contracts[name], d.address, name);
    assert.equal(c.governance.governor, governor);
    assert.equal(c.governance.timelock, deployments.contracts.AgentHubTimelock.address);
    assert.equal(c.governance.token, deployments.contracts.AgentHubToken.address);
    const safe = deployments.emergencySafe;
    assert.ok(safe, "the local deployment has an emergency Safe");
    const safeAbi = parseAbi([
      "function getThreshold() view returns (uint256)",
      "function getOwners() view returns (address[])",
    ]);
    assert.deepEqual(c.governance.emergencySafe, {
      address: safe,
      threshold: Number(await publicClient.readContract({ address: safe, abi: safeAbi, functionName: "getThreshold" })),
      owners: [...(await publicClient.readContract({ address: safe, abi: safeAbi, functionName: "getOwners" }))],
    });
    assert.equal(c.governance.emergencySafe.threshold, 3);
    assert.equal(c.governance.emergencySafe.owners.length, 5);
    const aa = deployments.accountAbstraction!;
    assert.equal(c.accountAbstraction.entryPoint, aa.entryPoint);
    assert.equal(c.accountAbstraction.simple7702Account, aa.simple7702Account);
    assert.equal(c.accountAbstraction.simpleAccountFactory, aa.simpleAccountFactory);
    assert.equal(c.accountAbstraction.paymaster, aa.paymaster.address);
    const paymasterUrl = new URL(c.accountAbstraction.paymasterUrl);
    assert.equal(paymasterUrl.pathname, "/api/paymaster");
    assert.equal(paymasterUrl.port, new URL(stack.apiUrl).port, "on this API (its PUBLIC_URL)");
    // ERC-8004: the chain's registries (on the local chain ours, at the canonical Base Sepolia addresses).
    assert.deepEqual(c.erc8004, {
      identityRegistry: CANONICAL_ERC8004.identityRegistry,
      reputationRegistry: CANONICAL_ERC8004.reputationRegistry,
      agentRegistry: `eip155:84532:${CANONICAL_ERC8004.identityRegistry}`,
    });

    const read = <T>(address: Address, abi: any, functionName: string) =>
      publicClient.readContract({ address, abi, functionName }) as Promise<T>;
    const p = c.parameters;
    assert.equal(BigInt(p.platformFeeBps), await read<bigint>(escrow, RunEscrowAbi, "feeBps"));
    assert.equal(c.platformFeeBps, p.platformFeeBps);
    assert.equal(BigInt(p.slashBps), await read<bigint>(escrow, RunEscrowAbi, "slashBps"));
    assert.equal(BigInt(p.maxCoverBps), await read<bigint>(escrow, RunEscrowAbi, "maxCoverBps"));
    assert.equal(BigInt(p.claimTimeoutSeconds), BigInt(await read<number>(escrow, RunEscrowAbi, "claimTimeout")));
    const vault = deployments.contracts.StakeVault.address;
    assert.equal(BigInt(p.minimumStake), await read<bigint>(vault, StakeVaultAbi, "minStake"));
    assert.equal(c.minimumStake, p.minimumStake);
    assert.equal(
      BigInt(p.stakeWithdrawalCooldownSeconds),
      BigInt(await read<number>(vault, StakeVaultAbi, "withdrawalCooldown")),
    );
    assert.equal(BigInt(p.votingPeriodSeconds), await read<bigint>(governor, AgentHubGovernorAbi, "votingPeriod"));
    assert.equal(p.insuranceClaimWindowSeconds, 7 * 24 * 3600);
    assert.ok(p.timelockMinDelaySeconds > 0 && p.votingDelaySeconds > 0 && p.quorumPercent > 0);
  });

  it("lets browser pages of localhost call it (CORS), and not other origins by default", async () => {
    const preflight = await fetch(`${stack.apiUrl}/api/config`, {
      method: "OPTIONS",
      headers: {
        Origin: "http://localhost:5173",
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "x-api-key",
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "http://localhost:5173");
    const other = await fetch(`${stack.apiUrl}/api/config`, { headers: { Origin: "https://elsewhere.example" } });
    assert.equal(other.status, 200);
    assert.equal(other.headers.get("access-control-allow-origin"), null);
  });
});

describe("/api/config after governance", () => {
  // A holder with 5M votes (above the quorum) and ETH for its own propose/vote/queue/execute transactions.
  const holder = newWallet();
  const deployer = walletFromKey(devAccounts.governanceHolder);

  before(async () => {
    await faucet(holder.address, 0n, 10n ** 18n);
    await mined(
      await deployer.wallet.writeContract({
        address: deployments.contracts.AgentHubToken.address,
        abi: AgentHubTokenAbi,
        functionName: "transfer",
        args: [holder.address, parseEther("5000000")],
        account: deployer.account,
        chain,
      }),
    );
    await mined(
      await holder.wallet.writeContract({
        address: deployments.contracts.AgentHubToken.address,
        abi: AgentHubTokenAbi,
        functionName: "delegate",
        args: [holder.address],
        account: holder.account,
        chain,
      }),
    );
    await increaseTime(10);
  });

  function setFee(bps: number, tag: string) {
    return {
      targets: [escrow],
      values: [0n],
      calldatas: [encodeFunctionData({ abi: RunEscrowAbi, functionName: "setFeeBps", args: [BigInt(bps)] })],
      description: `# Platform fee ${bps} bps (${tag})`,
    };
  }

  async function governorCall(
    functionName: "propose" | "queue" | "execute",
    p: ReturnType<typeof setFee>,
  ): Promise<bigint> {
    const args =
      functionName === "propose"
        ? ([p.targets, p.values, p.calldatas, p.description] as const)
        : ([p.targets, p.values, p.calldatas, keccak256(toBytes(p.description))] as const);
    const receipt = await mined(
      await holder.wallet.writeContract({
        address: governor,
        abi: AgentHubGovernorAbi,
        functionName,
        args: args as never,
        account: holder.account,
        chain,
      }),
    );
    return receipt.blockNumber;
  }

  it("shows a fee change executed through the timelock within seconds", async (t) => {
    const start = await config();
    const original = start.platformFeeBps as number;
    const changed = original === 300 ? 400 : 300;
    const tag = holder.address;
    const change = setFee(changed, tag);
    const restore = setFee(original, tag);
    await governorCall("propose", change);
    await governorCall("propose", restore);
    const ids = await Promise.all(
      [change, restore].map((p) =>
        publicClient.readContract({
          address: governor,
          abi: AgentHubGovernorAbi,
          functionName: "hashProposal",
          args: [p.targets, p.values, p.calldatas, keccak256(toBytes(p.description))],
        }),
      ),
    );
    await increaseTime(start.parameters.votingDelaySeconds + 1);
    for (const id of ids) {
      await mined(
        await holder.wallet.writeContract({
          address: governor,
          abi: AgentHubGovernorAbi,
          functionName: "castVote",
          args: [id, 1],
          account: holder.account,
          chain,
        }),
      );
    }
    await increaseTime(start.parameters.votingPeriodSeconds + 1);
    await governorCall("queue", change);
    await governorCall("queue", restore);
    await increaseTime(start.parameters.timelockMinDelaySeconds + 1);
    assert.equal((await config()).platformFeeBps, original, "nothing changes before execution");

    const executedAt = await governorCall("execute", change);
    const began = Date.now();
    const after = await waitUntil("the new fee in /api/config", async () => {
      const c = await config();
      return c.platformFeeBps === changed ? c : undefined;
    });
    const seconds = (Date.now() - began) / 1000;
    t.diagnostic(`the new fee showed ${seconds}s after the execution was mined`);
    assert.ok(seconds < 5, `visible after ${seconds}s`);
    assert.equal(after.parameters.platformFeeBps, changed);
    assert.ok(BigInt(after.parameters.block) >= executedAt);

    await governorCall("execute", restore);
    await waitUntil("the fee restored in /api/config", async () => (await config()).platformFeeBps === original);
  });
});
