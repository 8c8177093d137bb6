// agent0-sdk 1.7.1 (ERC-8004's TypeScript SDK), unchanged and configured only, against the stack's chain: it finds
// the registries at the canonical Base Sepolia addresses (where the local node holds AgentHub's implementation,
// docs/erc8004.md), loads an agent's registration file from its base64 `data:` agentURI without any network, and
// reads feedback and the reputation summary over RPC.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { IdentityRegistryAbi, ReputationRegistryAbi } from "@agenthub/common/generated/abis";
import { SDK } from "agent0-sdk";
import { type Hex, keccak256, parseEventLogs, toBytes, zeroHash } from "viem";
import { CANONICAL_ERC8004 } from "../../ignition/erc8004.ts";
import { faucet } from "../support/agents.ts";
import { db, deployments, newWallet, publicClient, stack } from "../support/stack.ts";

after(() => db.end());

if (!deployments.erc8004) throw new Error("the stack's deployments file names no ERC-8004 registries");
const registries = deployments.erc8004;

/** The SDK as a third party would set it up for this chain: its RPC, the registries, no subgraph reachable. */
const sdk = new SDK({
  chainId: 84532,
  rpcUrl: stack.rpcUrl,
  registryOverrides: { 84532: { IDENTITY: registries.identityRegistry, REPUTATION: registries.reputationRegistry } },
  // The built-in Base Sepolia subgraph is on the internet; a closed local port makes the SDK fall back to the chain
  // at once (its documented behaviour) instead of waiting on a lookup this machine cannot make.
  subgraphOverrides: { 84532: "http://127.0.0.1:9/subgraph" },
});

const registrationFile = (name: string) => ({
  type: "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
  name,
  description: "An agent registered straight in the ERC-8004 IdentityRegistry",
  image: "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy",
  services: [
    { name: "A2A", endpoint: "https://agent.example/.well-known/agent-card.json", version: "0.3.0" },
    { name: "MCP", endpoint: "https://agent.example/mcp", version: "2025-06-18" },
  ],
  x402Support: true,
  active: true,
  registrations: [],
  supportedTrust: ["reputation", "crypto-economic"],
});
const dataUri = (file: unknown) =>
  `data:application/json;base64,${Buffer.from(JSON.stringify(file)).toString("base64")}`;

async function funded() {
  const w = newWallet();
  await faucet(w.address, 0n, 10n ** 17n);
  return w;
}

async function send(tx: Promise<Hex>) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash: await tx });
  assert.equal(receipt.status, "success");
  return receipt;
}

async function registerAgent(owner: ReturnType<typeof newWallet>, uri: string): Promise<bigint> {
  const receipt = await send(
    owner.wallet.writeContract({
      address: registries.identityRegistry,
      abi: IdentityRegistryAbi,
      functionName: "register",
      args: [uri],
    }),
  );
  const [registered] = parseEventLogs({ abi: IdentityRegistryAbi, logs: receipt.logs, eventName: "Registered" });
  if (!registered) throw new Error("no Registered event");
  return registered.args.agentId;
}

describe("ERC-8004 interop: agent0-sdk 1.7.1 on the local registries", () => {
  it("runs against the canonical Base Sepolia addresses", () => {
    assert.deepEqual(registries, CANONICAL_ERC8004);
    assert.equal(sdk.identityRegistryAddress(), CANONICAL_ERC8004.identityRegistry);
    assert.equal(sdk.reputationRegistryAddress(), CANONICAL_ERC8004.reputationRegistry);
  });

  it("loadAgent reads the agentURI over RPC and decodes the data: registration file", async () => {
    const owner = await funded();
    const name = `interop-${owner.address.slice(2, 10)}`;
    const uri = dataUri(registrationFile(name));
    const agentId = await registerAgent(owner, uri);
    const agent = await sdk.loadAgent(`84532:${agentId}`);
    assert.equal(agent.agentId, `84532:${agentId}`);
    assert.equal(agent.agentURI, uri);
    assert.equal(agent.name, name);
    const file = agent.getRegistrationFile();
    assert.deepEqual(
      file.endpoints.map((e) => [e.type, e.value]),
      [
        ["A2A", "https://agent.example/.well-known/agent-card.json"],
        ["MCP", "https://agent.example/mcp"],
      ],
    );
    assert.deepEqual(file.trustModels, ["reputation", "crypto-economic"]);
    assert.equal(file.active, true);
    assert.equal(file.x402support, true);
    assert.equal(await sdk.isAgentOwner(`84532:${agentId}`, owner.address), true);
  });

  it("getFeedback and getReputationSummary read a reviewer's feedback; the owner cannot rate itself", async () => {
    const owner = await funded();
    const reviewer = await funded();
    const agentId = await registerAgent(owner, dataUri(registrationFile("rated")));
    const giveFeedback = (from: ReturnType<typeof newWallet>, value: bigint, feedbackURI: string, hash: Hex) =>
      from.wallet.writeContract({
        address: registries.reputationRegistry,
        abi: ReputationRegistryAbi,
        functionName: "giveFeedback",
        args: [agentId, value, 0, "starred", "writing", "https://agent.example/mcp", feedbackURI, hash],
      });
    await assert.rejects(
      publicClient.simulateContract({
        account: owner.account,
        address: registries.reputationRegistry,
        abi: ReputationRegistryAbi,
        functionName: "giveFeedback",
        args: [agentId, 100n, 0, "", "", "", "", zeroHash],
      }),
      /ReputationRegistrySelfFeedback/,
    );
    const document = JSON.stringify({ agentId: Number(agentId), value: 87 });
    await send(giveFeedback(reviewer, 87n, "https://reviews.example/1.json", keccak256(toBytes(document))));

    const feedback = await sdk.getFeedback(`84532:${agentId}`, reviewer.address, 1);
    assert.equal(feedback.value, 87);
    assert.deepEqual(feedback.tags, ["starred", "writing"]);
    assert.equal(feedback.endpoint, "https://agent.example/mcp");
    assert.equal(feedback.fileURI, "https://reviews.example/1.json");
    assert.equal(feedback.isRevoked, false);
    assert.deepEqual(await sdk.getReputationSummary(`84532:${agentId}`), { count: 1, averageValue: 87 });
    assert.deepEqual(await sdk.getReputationSummary(`84532:${agentId}`, "starred", "code"), {
      count: 0,
      averageValue: 0,
    });
  });
});
