import assert from "node:assert/strict";
import { network } from "hardhat";
import { describe, it } from "mocha";
import { type Address, getAddress, type Hex, hashTypedData, toFunctionSelector, toHex, zeroAddress } from "viem";
import { CHAIN_ID, deployCore, highSTwin, IPFS_URI, mintAgent, prng, rawEcrecover, wait } from "./fixtures.ts";

const { viem, networkHelpers } = await network.create();

const CLAIM_TYPES = {
  Claim: [
    { name: "agentId", type: "uint256" },
    { name: "to", type: "address" },
  ],
} as const;

async function fixture() {
  const core = await networkHelpers.loadFixture(deployCore);
  const { identity, wallets } = core;
  // The relayer mints to a service wallet (here: `agentOwner`), which later signs the claim for the user.
  const service = wallets.agentOwner;
  const user = wallets.poster2;
  const domain = (chainId = CHAIN_ID, verifyingContract: Address = identity.address) =>
    ({ name: "AgentHub Identity", version: "1", chainId, verifyingContract }) as const;
  const signClaim = (
    agentId: bigint,
    to: Address,
    opts: { signer?: typeof service; chainId?: number; verifyingContract?: Address } = {},
  ) =>
    (opts.signer ?? service).signTypedData({
      account: (opts.signer ?? service).account,
      domain: domain(opts.chainId, opts.verifyingContract),
      types: CLAIM_TYPES,
      primaryType: "Claim",
      message: { agentId, to },
    });
  return { ...core, service, user, domain, signClaim };
}

describe("AgentIdentity", () => {
  describe("mint", () => {
    it("mints sequential ids from 1 to the given wallet with the profile and events", async () => {
      const core = await fixture();
      const { identity, wallets, service, publicClient } = core;
      assert.equal(await identity.read.totalAgents(), 0n);
      const tx = identity.write.mint([service.account.address, IPFS_URI], { account: wallets.relayer.account });
      await viem.assertions.emitWithArgs(tx, identity, "AgentRegistered", [1n, service.account.address]);
      await viem.assertions.emitWithArgs(tx, identity, "ProfileUpdated", [1n, IPFS_URI]);
      await viem.assertions.emitWithArgs(tx, identity, "Transfer", [zeroAddress, service.account.address, 1n]);
      const block = await publicClient.getBlock();
      assert.equal(await identity.read.ownerOf([1n]), getAddress(service.account.address));
      assert.equal(await identity.read.tokenURI([1n]), IPFS_URI);
      const profile = await identity.read.getProfile([1n]);
      assert.deepEqual(profile, { metadataUri: IPFS_URI, registeredAt: block.timestamp, claimed: false });
      assert.equal(await identity.read.totalAgents(), 1n);
      assert.equal(await mintAgent(core, service.account.address), 2n);
    });

    it("is restricted to the relayer", async () => {
      const { identity, wallets } = await fixture();
      await viem.assertions.revertWithCustomError(
        identity.write.mint([wallets.other.account.address, IPFS_URI], { account: wallets.other.account }),
        identity,
        "AccessControlUnauthorizedAccount",
      );
      // The admin does not mint either unless it grants itself the role.
      await viem.assertions.revertWithCustomError(
        identity.write.mint([wallets.other.account.address, IPFS_URI], { account: wallets.admin.account }),
        identity,
        "AccessControlUnauthorizedAccount",
      );
    });

    it("mintBatch mints consecutive ids with the same events and profiles as single mints", async () => {
      const core = await fixture();
      const { identity, wallets, service, user, publicClient } = core;
      assert.equal(await mintAgent(core, service.account.address), 1n);
      const to = [service.account.address, user.account.address, wallets.other.account.address];
      const uris = [IPFS_URI, "https://agents.example.com/b.json", `${IPFS_URI}x`];
      const tx = identity.write.mintBatch([to, uris], { account: wallets.relayer.account });
      for (const [i, uri] of uris.entries()) {
        await viem.assertions.emitWithArgs(tx, identity, "AgentRegistered", [BigInt(i + 2), to[i]!]);
        await viem.assertions.emitWithArgs(tx, identity, "ProfileUpdated", [BigInt(i + 2), uri]);
      }
      const block = await publicClient.getBlock();
      for (const [i, uri] of uris.entries()) {
        const id = BigInt(i + 2);
        assert.equal(await identity.read.ownerOf([id]), getAddress(to[i]!));
        assert.deepEqual(await identity.read.getProfile([id]), {
          metadataUri: uri,
          registeredAt: block.timestamp,
          claimed: false,
        });
      }
      assert.equal(await identity.read.totalAgents(), 4n);
      assert.equal(await mintAgent(core, service.account.address), 5n);
    });

    it("mintBatch is the relayer's, refuses mismatched or empty batches and is atomic", async () => {
      const { identity, wallets } = await fixture();
      const other = wallets.other.account.address;
      await viem.assertions.revertWithCustomError(
        identity.write.mintBatch([[other], [IPFS_URI]], { account: wallets.other.account }),
        identity,
        "AccessControlUnauthorizedAccount",
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        identity.write.mintBatch([[other, other], [IPFS_URI]], { account: wallets.relayer.account }),
        identity,
        "AgentIdentityBatchMismatch",
        [2n, 1n],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        identity.write.mintBatch([[], []], { account: wallets.relayer.account }),
        identity,
        "AgentIdentityBatchMismatch",
        [0n, 0n],
      );
      // One bad entry (empty URI, or the zero address) reverts the whole batch: no id is taken.
      await viem.assertions.revertWithCustomError(
        identity.write.mintBatch(
          [
            [other, other],
            [IPFS_URI, ""],
          ],
          { account: wallets.relayer.account },
        ),
        identity,
        "AgentIdentityEmptyUri",
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        identity.write.mintBatch(
          [
            [other, zeroAddress],
            [IPFS_URI, IPFS_URI],
          ],
          { account: wallets.relayer.account },
        ),
        identity,
        "ERC721InvalidReceiver",
        [zeroAddress],
      );
      assert.equal(await identity.read.totalAgents(), 0n);
    });

    it("rejects an empty URI and the zero address", async () => {
      const { identity, wallets } = await fixture();
      await viem.assertions.revertWithCustomError(
        identity.write.mint([wallets.other.account.address, ""], { account: wallets.relayer.account }),
        identity,
        "AgentIdentityEmptyUri",
      );
      await viem.assertions.revertWithCustomError(
        identity.write.mint([zeroAddress, IPFS_URI], { account: wallets.relayer.account }),
        identity,
        "ERC721InvalidReceiver",
      );
    });

    it("stores and returns URIs of every length and prefix exactly (packed storage round trip)", async () => {
      const core = await fixture();
      const { identity, wallets, publicClient } = core;
      const rnd = prng(0x1d3);
      const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
      const body = (n: number) => Array.from({ length: n }, () => alphabet[rnd.int(32)]).join("");
      const prefixes = [
        "",
        "ipfs://bafkrei",
        "ipfs://bafybei",
        "ipfs://",
        "https://",
        "ipfs:/",
        "ipfs://bafk",
        "ar://",
      ];
      const uris: string[] = ["x", "é", "ipfs://", "ipfs://bafkrei", "https://", "data:application/json;base64,eyJ9"];
      for (const p of prefixes)
        for (const n of [0, 1, 20, 21, 22, 31, 32, 33, 52, 53, 54, 85, 86, 200]) uris.push(p + body(n));
      uris.push(`https://example.com/agents/ünïcødé/${"🦾".repeat(9)}.json`);
      for (const uri of uris.filter((u) => u.length > 0)) {
        await wait(
          publicClient,
          identity.write.mint([wallets.other.account.address, uri], { account: wallets.relayer.account }),
        );
        const id = await identity.read.totalAgents();
        assert.equal(await identity.read.tokenURI([id]), uri, `round trip of ${JSON.stringify(uri)}`);
      }
    });

    it("fits the 66-character ipfs URI mint in the gas budget (<= 150k)", async () => {
      const core = await fixture();
      const { identity, wallets, publicClient } = core;
      // First mint pays for the counter going 0 -> 1; measure the second, to a fresh wallet.
      await mintAgent(core, wallets.other.account.address);
      const receipt = await wait(
        publicClient,
        identity.write.mint(["0x000000000000000000000000000000000000bEEF", IPFS_URI], {
          account: wallets.relayer.account,
        }),
      );
      assert.equal(IPFS_URI.length, 66);
      assert.ok(receipt.gasUsed <= 150_000n, `mint used ${receipt.gasUsed} gas`);
    });
  });

  describe("setTokenURI", () => {
    it("lets the owner, an approved address, an operator and the relayer update; keeps registeredAt/claimed", async () => {
      const core = await fixture();
      const { identity, wallets, service } = core;
      const id = await mintAgent(core, service.account.address);
      const before = await identity.read.getProfile([id]);
      await networkHelpers.time.increase(100);

      const longUri = `https://example.com/${"a".repeat(150)}.json`;
      await viem.assertions.emitWithArgs(
        identity.write.setTokenURI([id, longUri], { account: service.account }),
        identity,
        "ProfileUpdated",
        [id, longUri],
      );
      assert.equal(await identity.read.tokenURI([id]), longUri);

      await identity.write.approve([wallets.other.account.address, id], { account: service.account });
      await identity.write.setTokenURI([id, "ipfs://short"], { account: wallets.other.account });
      assert.equal(await identity.read.tokenURI([id]), "ipfs://short");

      await identity.write.setApprovalForAll([wallets.poster.account.address, true], { account: service.account });
      await identity.write.setTokenURI([id, IPFS_URI], { account: wallets.poster.account });
      assert.equal(await identity.read.tokenURI([id]), IPFS_URI);

      await identity.write.setTokenURI([id, `${IPFS_URI}#v2`], { account: wallets.relayer.account });
      const after = await identity.read.getProfile([id]);
      assert.deepEqual(after, { ...before, metadataUri: `${IPFS_URI}#v2` });
    });

    it("rejects strangers, unknown ids and empty URIs", async () => {
      const core = await fixture();
      const { identity, wallets, service } = core;
      const id = await mintAgent(core, service.account.address);
      await viem.assertions.revertWithCustomErrorWithArgs(
        identity.write.setTokenURI([id, IPFS_URI], { account: wallets.other.account }),
        identity,
        "AgentIdentityUnauthorized",
        [getAddress(wallets.other.account.address), id],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        identity.write.setTokenURI([99n, IPFS_URI], { account: wallets.relayer.account }),
        identity,
        "AgentIdentityNonexistent",
        [99n],
      );
      await viem.assertions.revertWithCustomError(
        identity.write.setTokenURI([id, ""], { account: service.account }),
        identity,
        "AgentIdentityEmptyUri",
      );
    });
  });

  describe("claimTransfer", () => {
    it("moves the token once with the holder's EIP-712 signature, submitted by anyone", async () => {
      const core = await fixture();
      const { identity, wallets, service, user, signClaim } = core;
      const id = await mintAgent(core, service.account.address);
      const sig = await signClaim(id, user.account.address);
      const tx = identity.write.claimTransfer([id, user.account.address, sig], { account: wallets.relayer.account });
      await viem.assertions.emitWithArgs(tx, identity, "AgentClaimed", [id, user.account.address]);
      await viem.assertions.emitWithArgs(tx, identity, "Transfer", [service.account.address, user.account.address, id]);
      assert.equal(await identity.read.ownerOf([id]), getAddress(user.account.address));
      const profile = await identity.read.getProfile([id]);
      assert.equal(profile.claimed, true);
      assert.equal(profile.metadataUri, IPFS_URI);
      // The new owner manages the profile; the old service wallet no longer can.
      await identity.write.setTokenURI([id, "ipfs://new"], { account: user.account });
      await viem.assertions.revertWithCustomError(
        identity.write.setTokenURI([id, "ipfs://old"], { account: service.account }),
        identity,
        "AgentIdentityUnauthorized",
      );
    });

    it("cannot be replayed or claimed twice", async () => {
      const core = await fixture();
      const { identity, service, user, signClaim, wallets } = core;
      const id = await mintAgent(core, service.account.address);
      const sig = await signClaim(id, user.account.address);
      await identity.write.claimTransfer([id, user.account.address, sig]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        identity.write.claimTransfer([id, user.account.address, sig]),
        identity,
        "AgentIdentityAlreadyClaimed",
        [id],
      );
      // Even a fresh signature by the new owner cannot claim again.
      const again = await signClaim(id, wallets.other.account.address, { signer: user });
      await viem.assertions.revertWithCustomError(
        identity.write.claimTransfer([id, wallets.other.account.address, again]),
        identity,
        "AgentIdentityAlreadyClaimed",
      );
    });

    it("rejects signatures for another agent, another recipient, another chain/contract or by another key", async () => {
      const core = await fixture();
      const { identity, service, user, signClaim, wallets } = core;
      const id1 = await mintAgent(core, service.account.address);
      const id2 = await mintAgent(core, service.account.address);
      const cases: Array<[string, Hex]> = [
        ["other agent", await signClaim(id2, user.account.address)],
        ["other to", await signClaim(id1, wallets.other.account.address)],
        ["other chain", await signClaim(id1, user.account.address, { chainId: 8453 })],
        ["other contract", await signClaim(id1, user.account.address, { verifyingContract: core.vault.address })],
        ["other key", await signClaim(id1, user.account.address, { signer: wallets.other })],
        ["garbage", "0x1234"],
      ];
      for (const [label, sig] of cases) {
        await viem.assertions
          .revertWithCustomErrorWithArgs(
            identity.write.claimTransfer([id1, user.account.address, sig]),
            identity,
            "AgentIdentityInvalidSignature",
            [id1],
          )
          .catch((e: unknown) => {
            throw new Error(`${label}: ${String(e)}`);
          });
      }
      assert.equal(await identity.read.ownerOf([id1]), getAddress(service.account.address));
    });

    it("rejects the high-s twin of a valid claim signature", async () => {
      const core = await fixture();
      const { identity, service, user, signClaim, domain, publicClient } = core;
      const id = await mintAgent(core, service.account.address);
      const sig = await signClaim(id, user.account.address);
      const twin = highSTwin(sig);
      const digest = hashTypedData({
        domain: domain(),
        types: CLAIM_TYPES,
        primaryType: "Claim",
        message: { agentId: id, to: user.account.address },
      });
      assert.equal(
        (await rawEcrecover(publicClient, digest, twin)).toLowerCase(),
        service.account.address.toLowerCase(),
      );
      await viem.assertions.revertWithCustomError(
        identity.write.claimTransfer([id, user.account.address, twin]),
        identity,
        "AgentIdentityInvalidSignature",
      );
      await identity.write.claimTransfer([id, user.account.address, sig]);
    });

    it("supports ERC-1271 holders and rejects unknown ids and the zero recipient", async () => {
      const core = await fixture();
      const { identity, service, user, signClaim, wallets } = core;
      const wallet = await viem.deployContract("ERC1271WalletMock", [service.account.address]);
      const id = await mintAgent(core, wallet.address);
      const sig = await signClaim(id, user.account.address);
      await identity.write.claimTransfer([id, user.account.address, sig]);
      assert.equal(await identity.read.ownerOf([id]), getAddress(user.account.address));

      await viem.assertions.revertWithCustomErrorWithArgs(
        identity.write.claimTransfer([77n, user.account.address, sig]),
        identity,
        "AgentIdentityNonexistent",
        [77n],
      );
      const id2 = await mintAgent(core, service.account.address);
      await viem.assertions.revertWithCustomError(
        identity.write.claimTransfer([id2, zeroAddress, await signClaim(id2, zeroAddress)]),
        identity,
        "ERC721InvalidReceiver",
      );
      assert.ok(wallets);
    });
  });

  describe("views and interfaces", () => {
    it("reverts on unknown ids", async () => {
      const { identity } = await fixture();
      await viem.assertions.revertWithCustomErrorWithArgs(
        identity.read.getProfile([1n]),
        identity,
        "AgentIdentityNonexistent",
        [1n],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        identity.read.tokenURI([0n]),
        identity,
        "AgentIdentityNonexistent",
        [0n],
      );
      await viem.assertions.revertWithCustomError(identity.read.ownerOf([1n]), identity, "ERC721NonexistentToken");
    });

    it("reports name, symbol, domain and supported interfaces", async () => {
      const { identity } = await fixture();
      assert.equal(await identity.read.name(), "AgentHub Agent");
      assert.equal(await identity.read.symbol(), "AGENT");
      const [, name, version, chainId] = await identity.read.eip712Domain();
      assert.deepEqual([name, version, chainId], ["AgentHub Identity", "1", BigInt(CHAIN_ID)]);
      for (const id of ["0x01ffc9a7", "0x80ac58cd", "0x5b5e139f", "0x7965db0b"] as const) {
        assert.equal(await identity.read.supportsInterface([id]), true, id);
      }
      assert.equal(await identity.read.supportsInterface(["0xffffffff"]), false);
      const selectors = [
        "mint(address,string)",
        "setTokenURI(uint256,string)",
        "claimTransfer(uint256,address,bytes)",
        "getProfile(uint256)",
        "totalAgents()",
      ].map((sig) => Number.parseInt(toFunctionSelector(sig).slice(2), 16));
      const agentInterfaceId = toHex(
        selectors.reduce((a, b) => (a ^ b) >>> 0, 0),
        { size: 4 },
      );
      assert.equal(await identity.read.supportsInterface([agentInterfaceId]), true);
    });
  });
});
