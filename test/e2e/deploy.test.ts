// `npx hardhat ignition deploy` of the modules on a fresh local node gives the contracts, addresses and roles the
// stack deployed for itself (scripts/lib/deploy.ts runs the same module in process): one deployment definition.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { agentHubChain, type Deployments } from "@agenthub/common";
import {
  IdentityRegistryAbi,
  ReputationRegistryAbi,
  StakeVaultAbi,
  VerifyingPaymasterAbi,
} from "@agenthub/common/generated/abis";
import { createPublicClient, getAddress, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { CANONICAL_ERC8004 } from "../../ignition/erc8004.ts";
import { devAccounts, repoRoot, startHardhatNode } from "../../scripts/lib/chain.ts";
import { LOCAL_PARAMETERS_FILE } from "../../scripts/lib/deploy.ts";
import { deploymentsFromIgnition } from "../../scripts/lib/ignition.ts";
import { freePort } from "../../scripts/lib/stack.ts";
import { chainRoleTable, documentedRoleTable, roleHolderNames } from "../support/custody.ts";
import { db, deployments, publicClient, stack } from "../support/stack.ts";

const deploymentId = `test-${process.pid}-${Date.now().toString(36)}`;
const deploymentDir = join(repoRoot, "ignition", "deployments", deploymentId);
let node: Awaited<ReturnType<typeof startHardhatNode>>;
let viaCli: Deployments;

const CLI_TIMEOUT_MS = 150_000;

/** Runs the Hardhat CLI to completion; resolves with its output, rejects with it on a non-zero exit. */
function hardhat(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(repoRoot, "node_modules", ".bin", "hardhat"), args, {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    // A hung CLI fails with what it printed (its debug log included) instead of the runner's bare file timeout.
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`hardhat ${args[0]} did not finish in ${CLI_TIMEOUT_MS} ms\n${output.slice(-20_000)}`));
    }, CLI_TIMEOUT_MS);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`hardhat ${args[0]} exited ${code}\n${output.slice(-20_000)}`));
    });
  });
}

before(async () => {
  node = await startHardhatNode({ port: await freePort() });
  await hardhat(
    [
      "ignition",
      "deploy",
      "ignition/modules/AgentHubLocal.ts",
      "--network",
      "localhost",
      "--parameters",
      LOCAL_PARAMETERS_FILE,
      "--deployment-id",
      deploymentId,
      // Ignition's CLI builds with the "production" profile by default: isolated jobs, every contract compiled
      // again by solcjs (minutes on a busy 2-core machine, which hit the file timeout in CI). The stack deploys
      // the default profile's artifacts; so does this, reusing them.
      "--build-profile",
      "default",
    ],
    // The localhost network reads RPC_URL; chain 84532 is not Hardhat's default, so Ignition asks to confirm.
    { RPC_URL: node.rpcUrl, HARDHAT_IGNITION_CONFIRM_DEPLOYMENT: "true" },
  );
  viaCli = await deploymentsFromIgnition({
    deploymentDir,
    moduleId: "AgentHubLocal",
    network: "localhost",
    rpcUrl: node.rpcUrl,
  });
});

after(async () => {
  await node?.stop();
  rmSync(deploymentDir, { recursive: true, force: true });
  await db.end();
});

describe("deploy: hardhat ignition deploy = the stack's deployment", () => {
  it("deploys the same contracts at the same addresses, with the same USDC and emergency Safe", () => {
    assert.equal(viaCli.chainId, deployments.chainId);
    assert.deepEqual(viaCli.usdc, deployments.usdc);
    assert.equal(viaCli.emergencySafe, deployments.emergencySafe);
    assert.equal(viaCli.treasury, deployments.treasury);
    for (const [name, contract] of Object.entries(deployments.contracts)) {
      assert.equal(viaCli.contracts[name as keyof Deployments["contracts"]].address, contract.address, name);
    }
  });

  it("deploys the same account-abstraction pieces: canonical EntryPoint, accounts, factory and the paymaster", async () => {
    const aa = deployments.accountAbstraction;
    const cliAa = viaCli.accountAbstraction;
    assert.ok(aa && cliAa, "both deployments carry accountAbstraction");
    assert.equal(cliAa.entryPoint, aa.entryPoint);
    assert.equal(cliAa.simple7702Account, aa.simple7702Account);
    assert.equal(cliAa.simpleAccountFactory, aa.simpleAccountFactory);
    assert.equal(cliAa.paymaster.address, aa.paymaster.address);
    // On the CLI's chain: code at every address, and the paymaster wired like the stack's (EntryPoint, timelock
    // owner); only its approving key differs, as documented: the parameter file's there, the stack's generated one.
    const client = createPublicClient({ chain: agentHubChain(node.rpcUrl), transport: http(node.rpcUrl) });
    for (const [name, address] of Object.entries({ ...cliAa, paymaster: cliAa.paymaster.address })) {
      assert.ok(((await client.getCode({ address: address as `0x${string}` })) ?? "0x").length > 2, `${name} has code`);
    }
    const paymaster = (chainClient: typeof client, functionName: "entryPoint" | "owner" | "verifyingSigner") =>
      chainClient.readContract({ address: cliAa.paymaster.address, abi: VerifyingPaymasterAbi, functionName });
    assert.equal(await paymaster(client, "entryPoint"), aa.entryPoint);
    assert.equal(await paymaster(client, "owner"), await paymaster(publicClient as typeof client, "owner"));
    assert.equal(await paymaster(client, "owner"), viaCli.treasury);
    const parameters = JSON.parse(readFileSync(LOCAL_PARAMETERS_FILE, "utf8")).AgentHubLocal;
    assert.equal(await paymaster(client, "verifyingSigner"), getAddress(parameters.paymasterSigner));
    const stackSigner = privateKeyToAccount(stack.env.PAYMASTER_SIGNER_KEY as `0x${string}`).address;
    assert.equal(await paymaster(publicClient as typeof client, "verifyingSigner"), stackSigner);
  });

  it("names the ERC-8004 registries at the canonical Base Sepolia addresses, where the local chain holds ours", async () => {
    assert.deepEqual(viaCli.erc8004, CANONICAL_ERC8004);
    assert.deepEqual(deployments.erc8004, CANONICAL_ERC8004);
    const client = createPublicClient({ chain: agentHubChain(node.rpcUrl), transport: http(node.rpcUrl) });
    for (const chain of [client, publicClient as typeof client]) {
      const identity = await chain.readContract({
        address: CANONICAL_ERC8004.reputationRegistry,
        abi: ReputationRegistryAbi,
        functionName: "getIdentityRegistry",
      });
      assert.equal(identity, CANONICAL_ERC8004.identityRegistry);
      assert.equal(
        await chain.readContract({ address: identity, abi: IdentityRegistryAbi, functionName: "name" }),
        "ERC-8004 Agent Identity",
      );
    }
  });

  it("wires exactly the documented roles", async () => {
    const client = createPublicClient({ chain: agentHubChain(node.rpcUrl), transport: http(node.rpcUrl) });
    const relayer = privateKeyToAccount(devAccounts.relayer).address;
    const onChain = await chainRoleTable(client, viaCli, roleHolderNames(viaCli, relayer));
    assert.deepEqual(onChain, documentedRoleTable());
    // The stake lock's source is the escrow the deployment wired (set before the deployer stepped down).
    const runEscrow = await client.readContract({
      address: viaCli.contracts.StakeVault.address,
      abi: StakeVaultAbi,
      functionName: "runEscrow",
    });
    assert.equal(getAddress(runEscrow), getAddress(viaCli.contracts.RunEscrow.address));
  });
});
