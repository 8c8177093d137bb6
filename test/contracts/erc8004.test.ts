// ERC-8004 registries (contracts/erc8004): the rules of the ERC text ("Trustless Agents"), checked one by one.
import assert from "node:assert/strict";
import { IdentityRegistryBytecode, ReputationRegistryBytecode } from "@agenthub/common/generated/bytecode";
import { network } from "hardhat";
import { describe, it } from "mocha";
import { type Address, getAddress, type Hex, keccak256, toBytes, toHex, zeroAddress, zeroHash } from "viem";
import { CANONICAL_ERC8004, erc8004LocalCode } from "../../ignition/erc8004.ts";
import { CHAIN_ID, IPFS_URI, wait } from "./fixtures.ts";

const { viem, networkHelpers } = await network.create();

const WALLET_TYPES = {
  AgentWalletSet: [
    { name: "agentId", type: "uint256" },
    { name: "newWallet", type: "address" },
    { name: "owner", type: "address" },
    { name: "deadline", type: "uint256" },
  ],
} as const;
const DATA_URI = `data:application/json;base64,${Buffer.from('{"type":"https://eips.ethereum.org/EIPS/eip-8004#registration-v1"}').toString("base64")}`;

async function deployRegistries() {
  const publicClient = await viem.getPublicClient();
  const [owner, operator, client, client2, wallet, stranger] = await viem.getWalletClients();
  if (!owner || !operator || !client || !client2 || !wallet || !stranger) throw new Error("need 6 accounts");
  const identity = await viem.deployContract("IdentityRegistry");
  const reputation = await viem.deployContract("ReputationRegistry", [identity.address]);
  return { publicClient, identity, reputation, owner, operator, client, client2, wallet, stranger };
}

type Fixture = Awaited<ReturnType<typeof deployRegistries>>;

/** Registers an agent as `owner` with `uri`; returns its id. */
async function register(f: Fixture, uri = IPFS_URI): Promise<bigint> {
  const hash = await f.identity.write.register([uri], { account: f.owner.account });
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash });
  const [registered] = await f.identity.getEvents.Registered({}, { blockHash: receipt.blockHash });
  if (registered?.args.agentId === undefined) throw new Error("no Registered event");
  return registered.args.agentId;
}

async function chainNow(f: Fixture): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

function signWallet(
  f: Fixture,
  signer: Fixture["wallet"],
  message: { agentId: bigint; newWallet: Address; owner: Address; deadline: bigint },
  verifyingContract: Address = f.identity.address,
) {
  return signer.signTypedData({
    account: signer.account,
    domain: { name: "ERC8004IdentityRegistry", version: "1", chainId: CHAIN_ID, verifyingContract },
    types: WALLET_TYPES,
    primaryType: "AgentWalletSet",
    message,
  });
}

describe("ERC-8004 IdentityRegistry", () => {
  it("registers ids from 0 with the agentURI, the owner as agentWallet and the ERC's events", async () => {
    const f = await networkHelpers.loadFixture(deployRegistries);
    const ownerAddress = getAddress(f.owner.account.address);
    const tx = f.identity.write.register([IPFS_URI], { account: f.owner.account });
    await viem.assertions.emitWithArgs(tx, f.identity, "Registered", [0n, IPFS_URI, ownerAddress]);
    const receipt = await f.publicClient.getTransactionReceipt({ hash: await tx });
    const events = await f.identity.getEvents.MetadataSet({}, { blockHash: receipt.blockHash });
    assert.equal(events.length, 1);
    assert.equal(events[0]?.args.metadataKey, "agentWallet");
    assert.equal(events[0]?.args.metadataValue, ownerAddress.toLowerCase());
    assert.equal(await f.identity.read.ownerOf([0n]), ownerAddress);
    assert.equal(await f.identity.read.tokenURI([0n]), IPFS_URI);
    assert.equal(await f.identity.read.getAgentWallet([0n]), ownerAddress);
    assert.equal(await register(f, DATA_URI), 1n);
    assert.equal(await f.identity.read.tokenURI([1n]), DATA_URI);
    assert.equal(await f.identity.read.name(), "ERC-8004 Agent Identity");
    assert.equal(await f.identity.read.symbol(), "AGENT");
  });

  it("registers without a URI and with extra metadata, refusing the reserved agentWallet key", async () => {
    const f = await networkHelpers.loadFixture(deployRegistries);
    await wait(f.publicClient, f.identity.write.register({ account: f.owner.account }));
    assert.equal(await f.identity.read.tokenURI([0n]), "");
    const entries = [{ metadataKey: "agentHub", metadataValue: toHex("eip155:84532:0xabc:7") }];
    const tx = f.identity.write.register([IPFS_URI, entries], { account: f.owner.account });
    await viem.assertions.emitWithArgs(tx, f.identity, "MetadataSet", [
      1n,
      keccak256(toBytes("agentHub")),
      "agentHub",
      entries[0]?.metadataValue as Hex,
    ]);
    assert.equal(await f.identity.read.getMetadata([1n, "agentHub"]), entries[0]?.metadataValue);
    await viem.assertions.revertWithCustomError(
      f.identity.write.register([IPFS_URI, [{ metadataKey: "agentWallet", metadataValue: f.client.account.address }]], {
        account: f.owner.account,
      }),
      f.identity,
      "IdentityRegistryReservedKey",
    );
    await viem.assertions.revertWithCustomError(
      f.identity.write.setMetadata([1n, "agentWallet", f.client.account.address], { account: f.owner.account }),
      f.identity,
      "IdentityRegistryReservedKey",
    );
  });

  it("lets the owner and its operators, nobody else, set the agentURI and metadata", async () => {
    const f = await networkHelpers.loadFixture(deployRegistries);
    const id = await register(f);
    await viem.assertions.revertWithCustomErrorWithArgs(
      f.identity.write.setAgentURI([id, DATA_URI], { account: f.stranger.account }),
      f.identity,
      "IdentityRegistryNotAuthorized",
      [id, getAddress(f.stranger.account.address)],
    );
    await viem.assertions.revertWithCustomError(
      f.identity.write.setMetadata([id, "k", "0x01"], { account: f.stranger.account }),
      f.identity,
      "IdentityRegistryNotAuthorized",
    );
    await viem.assertions.emitWithArgs(
      f.identity.write.setAgentURI([id, DATA_URI], { account: f.owner.account }),
      f.identity,
      "URIUpdated",
      [id, DATA_URI, getAddress(f.owner.account.address)],
    );
    await wait(
      f.publicClient,
      f.identity.write.setApprovalForAll([f.operator.account.address, true], { account: f.owner.account }),
    );
    await viem.assertions.emitWithArgs(
      f.identity.write.setAgentURI([id, IPFS_URI], { account: f.operator.account }),
      f.identity,
      "URIUpdated",
      [id, IPFS_URI, getAddress(f.operator.account.address)],
    );
    await wait(f.publicClient, f.identity.write.setMetadata([id, "k", "0x01"], { account: f.operator.account }));
    assert.equal(await f.identity.read.getMetadata([id, "k"]), "0x01");
    assert.equal(await f.identity.read.tokenURI([id]), IPFS_URI);
    await viem.assertions.revertWithCustomError(
      f.identity.write.setAgentURI([99n, IPFS_URI], { account: f.owner.account }),
      f.identity,
      "ERC721NonexistentToken",
    );
  });

  describe("agentWallet", () => {
    it("is set with the new wallet's EIP-712 proof and cleared by unsetAgentWallet", async () => {
      const f = await networkHelpers.loadFixture(deployRegistries);
      const id = await register(f);
      const newWallet = getAddress(f.wallet.account.address);
      const deadline = (await chainNow(f)) + 240n;
      const message = { agentId: id, newWallet, owner: getAddress(f.owner.account.address), deadline };
      const signature = await signWallet(f, f.wallet, message);
      await viem.assertions.emitWithArgs(
        f.identity.write.setAgentWallet([id, newWallet, deadline, signature], { account: f.owner.account }),
        f.identity,
        "MetadataSet",
        [id, keccak256(toBytes("agentWallet")), "agentWallet", newWallet.toLowerCase() as Hex],
      );
      assert.equal(await f.identity.read.getAgentWallet([id]), newWallet);
      await viem.assertions.revertWithCustomError(
        f.identity.write.unsetAgentWallet([id], { account: f.stranger.account }),
        f.identity,
        "IdentityRegistryNotAuthorized",
      );
      await wait(f.publicClient, f.identity.write.unsetAgentWallet([id], { account: f.owner.account }));
      assert.equal(await f.identity.read.getAgentWallet([id]), zeroAddress);
    });

    it("refuses proofs by another key, for another agent, owner or registry, expired or too far ahead", async () => {
      const f = await networkHelpers.loadFixture(deployRegistries);
      const id = await register(f);
      const other = await register(f);
      const newWallet = getAddress(f.wallet.account.address);
      const owner = getAddress(f.owner.account.address);
      const deadline = (await chainNow(f)) + 240n;
      const valid = { agentId: id, newWallet, owner, deadline };
      const refused = async (signature: Hex, args: { agentId?: bigint; deadline?: bigint } = {}) =>
        viem.assertions.revertWithCustomErrorWithArgs(
          f.identity.write.setAgentWallet([args.agentId ?? id, newWallet, args.deadline ?? deadline, signature], {
            account: f.owner.account,
          }),
          f.identity,
          "IdentityRegistryInvalidWalletProof",
          [newWallet],
        );
      await refused(await signWallet(f, f.stranger, valid));
      await refused(await signWallet(f, f.wallet, valid), { agentId: other });
      await refused(await signWallet(f, f.wallet, { ...valid, owner: getAddress(f.stranger.account.address) }));
      await refused(await signWallet(f, f.wallet, valid, f.reputation.address));
      await refused(await signWallet(f, f.wallet, valid), { deadline: deadline + 1n });
      const past = (await chainNow(f)) - 1n;
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.identity.write.setAgentWallet(
          [id, newWallet, past, await signWallet(f, f.wallet, { ...valid, deadline: past })],
          {
            account: f.owner.account,
          },
        ),
        f.identity,
        "IdentityRegistryProofExpired",
        [past],
      );
      const far = (await chainNow(f)) + 301n + 60n;
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.identity.write.setAgentWallet(
          [id, newWallet, far, await signWallet(f, f.wallet, { ...valid, deadline: far })],
          {
            account: f.owner.account,
          },
        ),
        f.identity,
        "IdentityRegistryDeadlineTooFar",
        [far],
      );
      await viem.assertions.revertWithCustomError(
        f.identity.write.setAgentWallet([id, zeroAddress, deadline, "0x"], { account: f.owner.account }),
        f.identity,
        "IdentityRegistryZeroWallet",
      );
      await viem.assertions.revertWithCustomError(
        f.identity.write.setAgentWallet([id, newWallet, deadline, await signWallet(f, f.wallet, valid)], {
          account: f.stranger.account,
        }),
        f.identity,
        "IdentityRegistryNotAuthorized",
      );
      assert.equal(await f.identity.read.getAgentWallet([id]), owner);
    });

    it("accepts an ERC-1271 proof from a contract wallet", async () => {
      const f = await networkHelpers.loadFixture(deployRegistries);
      const id = await register(f);
      const smart = await viem.deployContract("ERC1271WalletMock", [f.wallet.account.address]);
      const deadline = (await chainNow(f)) + 240n;
      const message = { agentId: id, newWallet: smart.address, owner: getAddress(f.owner.account.address), deadline };
      const signature = await signWallet(f, f.wallet, message);
      await wait(
        f.publicClient,
        f.identity.write.setAgentWallet([id, smart.address, deadline, signature], { account: f.owner.account }),
      );
      assert.equal(await f.identity.read.getAgentWallet([id]), getAddress(smart.address));
    });

    it("is cleared when the agent is transferred, and the new owner's proof names the new owner", async () => {
      const f = await networkHelpers.loadFixture(deployRegistries);
      const id = await register(f);
      const owner = getAddress(f.owner.account.address);
      const buyer = getAddress(f.client.account.address);
      await viem.assertions.emitWithArgs(
        f.identity.write.transferFrom([owner, buyer, id], { account: f.owner.account }),
        f.identity,
        "MetadataSet",
        [id, keccak256(toBytes("agentWallet")), "agentWallet", "0x"],
      );
      assert.equal(await f.identity.read.getAgentWallet([id]), zeroAddress);
      const deadline = (await chainNow(f)) + 240n;
      const newWallet = getAddress(f.wallet.account.address);
      const stale = await signWallet(f, f.wallet, { agentId: id, newWallet, owner, deadline });
      await viem.assertions.revertWithCustomError(
        f.identity.write.setAgentWallet([id, newWallet, deadline, stale], { account: f.client.account }),
        f.identity,
        "IdentityRegistryInvalidWalletProof",
      );
      const fresh = await signWallet(f, f.wallet, { agentId: id, newWallet, owner: buyer, deadline });
      await wait(
        f.publicClient,
        f.identity.write.setAgentWallet([id, newWallet, deadline, fresh], { account: f.client.account }),
      );
      assert.equal(await f.identity.read.getAgentWallet([id]), newWallet);
    });
  });

  it("isAuthorizedOrOwner is true for the owner and operators only, and reverts for unknown agents", async () => {
    const f = await networkHelpers.loadFixture(deployRegistries);
    const id = await register(f);
    assert.equal(await f.identity.read.isAuthorizedOrOwner([f.owner.account.address, id]), true);
    assert.equal(await f.identity.read.isAuthorizedOrOwner([f.operator.account.address, id]), false);
    await wait(
      f.publicClient,
      f.identity.write.approve([f.operator.account.address, id], { account: f.owner.account }),
    );
    assert.equal(await f.identity.read.isAuthorizedOrOwner([f.operator.account.address, id]), true);
    await viem.assertions.revertWithCustomError(
      f.identity.read.isAuthorizedOrOwner([f.owner.account.address, 5n]),
      f.identity,
      "ERC721NonexistentToken",
    );
  });
});

describe("ERC-8004 ReputationRegistry", () => {
  const give = (
    f: Fixture,
    from: Fixture["client"],
    agentId: bigint,
    value: bigint,
    opts: { decimals?: number; tag1?: string; tag2?: string; uri?: string; hash?: Hex } = {},
  ) =>
    f.reputation.write.giveFeedback(
      [
        agentId,
        value,
        opts.decimals ?? 0,
        opts.tag1 ?? "agenthub-run",
        opts.tag2 ?? "writing",
        "https://agent.example/run",
        opts.uri ?? "ipfs://feedback",
        opts.hash ?? zeroHash,
      ],
      { account: from.account },
    );

  it("names its identity registry and refuses a zero one", async () => {
    const f = await networkHelpers.loadFixture(deployRegistries);
    assert.equal(await f.reputation.read.getIdentityRegistry(), getAddress(f.identity.address));
    await assert.rejects(
      viem.deployContract("ReputationRegistry", [zeroAddress]),
      /ReputationRegistryZeroIdentityRegistry/,
    );
  });

  it("stores feedback numbered from 1 per client, emits the full event and tracks clients", async () => {
    const f = await networkHelpers.loadFixture(deployRegistries);
    const id = await register(f);
    const client = getAddress(f.client.account.address);
    const hash = keccak256(toBytes("document"));
    await viem.assertions.emitWithArgs(
      give(f, f.client, id, 90n, { uri: "https://x/doc.json", hash }),
      f.reputation,
      "NewFeedback",
      [
        id,
        client,
        1n,
        90n,
        0,
        keccak256(toBytes("agenthub-run")),
        "agenthub-run",
        "writing",
        "https://agent.example/run",
        "https://x/doc.json",
        hash,
      ],
    );
    await wait(f.publicClient, give(f, f.client, id, -5n, { decimals: 1, tag2: "code" }));
    await wait(f.publicClient, give(f, f.client2, id, 70n));
    assert.equal(await f.reputation.read.getLastIndex([id, client]), 2n);
    assert.deepEqual(await f.reputation.read.readFeedback([id, client, 2n]), [-5n, 1, "agenthub-run", "code", false]);
    assert.deepEqual(await f.reputation.read.getClients([id]), [client, getAddress(f.client2.account.address)]);
    for (const index of [0n, 3n]) {
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.reputation.read.readFeedback([id, client, index]),
        f.reputation,
        "ReputationRegistryUnknownFeedback",
        [id, client, index],
      );
    }
  });

  it("refuses feedback from the agent's owner and operators, for unknown agents and above 18 decimals", async () => {
    const f = await networkHelpers.loadFixture(deployRegistries);
    const id = await register(f);
    await viem.assertions.revertWithCustomErrorWithArgs(
      give(f, f.owner, id, 100n),
      f.reputation,
      "ReputationRegistrySelfFeedback",
      [id, getAddress(f.owner.account.address)],
    );
    await wait(
      f.publicClient,
      f.identity.write.setApprovalForAll([f.operator.account.address, true], { account: f.owner.account }),
    );
    await viem.assertions.revertWithCustomError(
      give(f, f.operator, id, 100n),
      f.reputation,
      "ReputationRegistrySelfFeedback",
    );
    await wait(f.publicClient, f.identity.write.approve([f.client.account.address, id], { account: f.owner.account }));
    await viem.assertions.revertWithCustomError(
      give(f, f.client, id, 100n),
      f.reputation,
      "ReputationRegistrySelfFeedback",
    );
    await viem.assertions.revertWithCustomError(give(f, f.client2, 9n, 100n), f.identity, "ERC721NonexistentToken");
    await viem.assertions.revertWithCustomErrorWithArgs(
      give(f, f.client2, id, 1n, { decimals: 19 }),
      f.reputation,
      "ReputationRegistryInvalidDecimals",
      [19],
    );
    await wait(f.publicClient, give(f, f.client2, id, 1n, { decimals: 18 }));
  });

  it("lets a client revoke its own feedback once; revoked entries leave summaries and default listings", async () => {
    const f = await networkHelpers.loadFixture(deployRegistries);
    const id = await register(f);
    const client = getAddress(f.client.account.address);
    await wait(f.publicClient, give(f, f.client, id, 100n));
    await wait(f.publicClient, give(f, f.client, id, 20n));
    await viem.assertions.revertWithCustomError(
      f.reputation.write.revokeFeedback([id, 1n], { account: f.client2.account }),
      f.reputation,
      "ReputationRegistryUnknownFeedback",
    );
    await viem.assertions.emitWithArgs(
      f.reputation.write.revokeFeedback([id, 1n], { account: f.client.account }),
      f.reputation,
      "FeedbackRevoked",
      [id, client, 1n],
    );
    await viem.assertions.revertWithCustomErrorWithArgs(
      f.reputation.write.revokeFeedback([id, 1n], { account: f.client.account }),
      f.reputation,
      "ReputationRegistryAlreadyRevoked",
      [id, client, 1n],
    );
    assert.deepEqual(await f.reputation.read.getSummary([id, [client], "", ""]), [1n, 20n, 0]);
    const [clients, indexes, , , , , revoked] = await f.reputation.read.readAllFeedback([id, [], "", "", false]);
    assert.deepEqual([clients, indexes, revoked], [[client], [2n], [false]]);
    const all = await f.reputation.read.readAllFeedback([id, [], "", "", true]);
    assert.deepEqual(
      [all[1], all[6]],
      [
        [1n, 2n],
        [true, false],
      ],
    );
  });

  it("summarises only the given clients, by tag, averaging at 18 decimals into the most common decimals", async () => {
    const f = await networkHelpers.loadFixture(deployRegistries);
    const id = await register(f);
    const [c1, c2] = [getAddress(f.client.account.address), getAddress(f.client2.account.address)];
    await wait(f.publicClient, give(f, f.client, id, 100n, { tag2: "writing" }));
    await wait(f.publicClient, give(f, f.client, id, 0n, { tag2: "code" }));
    await wait(f.publicClient, give(f, f.client2, id, 505n, { decimals: 1, tag1: "starred", tag2: "writing" }));
    await viem.assertions.revertWithCustomError(
      f.reputation.read.getSummary([id, [], "", ""]),
      f.reputation,
      "ReputationRegistryClientsRequired",
    );
    assert.deepEqual(await f.reputation.read.getSummary([id, [c1], "", ""]), [2n, 50n, 0]);
    assert.deepEqual(await f.reputation.read.getSummary([id, [c1], "", "writing"]), [1n, 100n, 0]);
    assert.deepEqual(await f.reputation.read.getSummary([id, [c1, c2], "agenthub-run", ""]), [2n, 50n, 0]);
    // (100 + 0 + 50.5) / 3 = 50.1666..; two entries have 0 decimals, so the answer has 0 decimals.
    assert.deepEqual(await f.reputation.read.getSummary([id, [c1, c2], "", ""]), [3n, 50n, 0]);
    assert.deepEqual(await f.reputation.read.getSummary([id, [c2], "", ""]), [1n, 505n, 1]);
    assert.deepEqual(await f.reputation.read.getSummary([id, [getAddress(f.stranger.account.address)], "", ""]), [
      0n,
      0n,
      0,
    ]);
    const byClient = await f.reputation.read.readAllFeedback([id, [c2], "", "", false]);
    assert.deepEqual(byClient, [[c2], [1n], [505n], [1], ["starred"], ["writing"], [false]]);
    const byTag = await f.reputation.read.readAllFeedback([id, [], "", "writing", false]);
    assert.deepEqual(byTag[0], [c1, c2]);
  });

  it("refuses a summary that does not fit int128 instead of truncating it", async () => {
    const f = await networkHelpers.loadFixture(deployRegistries);
    const id = await register(f);
    const c1 = getAddress(f.client.account.address);
    const maxInt128 = 2n ** 127n - 1n;
    await wait(f.publicClient, give(f, f.client, id, maxInt128, { decimals: 0 }));
    await wait(f.publicClient, give(f, f.client, id, 1n, { decimals: 18 }));
    await wait(f.publicClient, give(f, f.client, id, 1n, { decimals: 18 }));
    await viem.assertions.revertWithCustomError(
      f.reputation.read.getSummary([id, [c1], "", ""]),
      f.reputation,
      "SafeCastOverflowedIntDowncast",
    );
  });

  it("takes responses from anyone on existing feedback and counts them by client, index and responder", async () => {
    const f = await networkHelpers.loadFixture(deployRegistries);
    const id = await register(f);
    const client = getAddress(f.client.account.address);
    const owner = getAddress(f.owner.account.address);
    await wait(f.publicClient, give(f, f.client, id, 10n));
    await wait(f.publicClient, give(f, f.client, id, 20n));
    const hash = keccak256(toBytes("refund"));
    await viem.assertions.emitWithArgs(
      f.reputation.write.appendResponse([id, client, 1n, "ipfs://refund", hash], { account: f.owner.account }),
      f.reputation,
      "ResponseAppended",
      [id, client, 1n, owner, "ipfs://refund", hash],
    );
    await wait(
      f.publicClient,
      f.reputation.write.appendResponse([id, client, 1n, "ipfs://again", zeroHash], { account: f.owner.account }),
    );
    await wait(
      f.publicClient,
      f.reputation.write.appendResponse([id, client, 2n, "ipfs://spam", zeroHash], { account: f.stranger.account }),
    );
    await viem.assertions.revertWithCustomError(
      f.reputation.write.appendResponse([id, client, 3n, "ipfs://x", zeroHash], { account: f.owner.account }),
      f.reputation,
      "ReputationRegistryUnknownFeedback",
    );
    await viem.assertions.revertWithCustomError(
      f.reputation.write.appendResponse([id, client, 1n, "", zeroHash], { account: f.owner.account }),
      f.reputation,
      "ReputationRegistryEmptyResponse",
    );
    assert.equal(await f.reputation.read.getResponseCount([id, client, 1n, []]), 2n);
    assert.equal(await f.reputation.read.getResponseCount([id, client, 0n, []]), 3n);
    assert.equal(await f.reputation.read.getResponseCount([id, zeroAddress, 0n, []]), 3n);
    assert.equal(await f.reputation.read.getResponseCount([id, client, 0n, [f.stranger.account.address]]), 1n);
    assert.equal(await f.reputation.read.getResponseCount([id, client, 2n, [owner]]), 0n);
  });
});

describe("ERC-8004 registries at the canonical addresses (as the local stack installs them)", () => {
  it("work from their runtime code alone: registration, wallet proof for that address, feedback", async () => {
    const f = await networkHelpers.loadFixture(deployRegistries);
    for (const { address, creationCode } of erc8004LocalCode({
      identity: IdentityRegistryBytecode,
      reputation: ReputationRegistryBytecode,
    })) {
      const { data } = await f.publicClient.call({ data: creationCode });
      assert.ok(data);
      await networkHelpers.setCode(address, data);
    }
    const identity = await viem.getContractAt("IdentityRegistry", CANONICAL_ERC8004.identityRegistry);
    const reputation = await viem.getContractAt("ReputationRegistry", CANONICAL_ERC8004.reputationRegistry);
    assert.equal(await reputation.read.getIdentityRegistry(), CANONICAL_ERC8004.identityRegistry);
    await wait(f.publicClient, identity.write.register([IPFS_URI], { account: f.owner.account }));
    assert.equal(await identity.read.tokenURI([0n]), IPFS_URI);
    const deadline = (await chainNow(f)) + 60n;
    const newWallet = getAddress(f.wallet.account.address);
    const message = { agentId: 0n, newWallet, owner: getAddress(f.owner.account.address), deadline };
    const signature = await signWallet(f, f.wallet, message, identity.address);
    await wait(
      f.publicClient,
      identity.write.setAgentWallet([0n, newWallet, deadline, signature], { account: f.owner.account }),
    );
    assert.equal(await identity.read.getAgentWallet([0n]), newWallet);
    await viem.assertions.revertWithCustomError(
      reputation.write.giveFeedback([0n, 1n, 0, "", "", "", "", zeroHash], { account: f.owner.account }),
      reputation,
      "ReputationRegistrySelfFeedback",
    );
    await wait(
      f.publicClient,
      reputation.write.giveFeedback([0n, 1n, 0, "", "", "", "", zeroHash], { account: f.client.account }),
    );
    assert.equal(await reputation.read.getLastIndex([0n, f.client.account.address]), 1n);
  });
});
