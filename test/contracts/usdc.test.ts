import assert from "node:assert/strict";
import { network } from "hardhat";
import { describe, it } from "mocha";
import { type Address, domainSeparator, type Hex, hashTypedData, parseSignature, zeroAddress } from "viem";
import {
  bytes32,
  CHAIN_ID,
  deployCore,
  highSTwin,
  rawEcrecover,
  signPermit as signUsdcPermit,
  wait,
} from "./fixtures.ts";

const { viem, networkHelpers } = await network.create();

const AUTH_FIELDS = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
] as const;
const TRANSFER_TYPES = { TransferWithAuthorization: AUTH_FIELDS } as const;
const RECEIVE_TYPES = { ReceiveWithAuthorization: AUTH_FIELDS } as const;
const CANCEL_TYPES = {
  CancelAuthorization: [
    { name: "authorizer", type: "address" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

async function fixture() {
  const core = await networkHelpers.loadFixture(deployCore);
  const { usdc, wallets, publicClient } = core;
  const { poster: alice, other: bob, relayer } = wallets;
  await wait(publicClient, usdc.write.mint([alice.account.address, 1_000_000_000n], { account: alice.account }));
  const now = (await publicClient.getBlock()).timestamp;
  const domain = (chainId = CHAIN_ID) =>
    ({ name: "USDC", version: "2", chainId, verifyingContract: usdc.address }) as const;

  type Auth = { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };
  const auth = (over: Partial<Auth> = {}): Auth => ({
    from: alice.account.address,
    to: bob.account.address,
    value: 5_000_000n,
    validAfter: 0n,
    validBefore: now + 3600n,
    nonce: bytes32(`nonce-${++nonceCounter}`),
    ...over,
  });
  const signTransfer = (a: Auth, chainId = CHAIN_ID, signer = alice) =>
    signer.signTypedData({
      account: signer.account,
      domain: domain(chainId),
      types: TRANSFER_TYPES,
      primaryType: "TransferWithAuthorization",
      message: a,
    });
  const signReceive = (a: Auth) =>
    alice.signTypedData({
      account: alice.account,
      domain: domain(),
      types: RECEIVE_TYPES,
      primaryType: "ReceiveWithAuthorization",
      message: a,
    });
  const signCancel = (authorizer: Address, nonce: Hex, signer = alice) =>
    signer.signTypedData({
      account: signer.account,
      domain: domain(),
      types: CANCEL_TYPES,
      primaryType: "CancelAuthorization",
      message: { authorizer, nonce },
    });
  const signPermit = async (
    spender: Address,
    value: bigint,
    deadline: bigint,
    opts: { chainId?: number; nonce?: bigint } = {},
  ) =>
    (
      await signUsdcPermit(usdc, alice, {
        spender,
        value,
        deadline,
        nonce: opts.nonce,
        domain: { chainId: opts.chainId },
      })
    ).signature;
  return { ...core, alice, bob, relayer, now, domain, auth, signTransfer, signReceive, signCancel, signPermit };
}

let nonceCounter = 0;

const vrs = (sig: Hex) => {
  const { r, s, v } = parseSignature(sig);
  return { v: Number(v), r, s };
};

describe("TestUSDC", () => {
  describe("token", () => {
    it("looks like USDC: name, symbol, 6 decimals, EIP-712 domain USDC/2 on chain 84532", async () => {
      const { usdc, domain } = await fixture();
      assert.equal(await usdc.read.name(), "USDC");
      assert.equal(await usdc.read.symbol(), "USDC");
      assert.equal(await usdc.read.decimals(), 6);
      assert.equal(await usdc.read.version(), "2");
      const [, name, version, chainId, verifyingContract] = await usdc.read.eip712Domain();
      assert.equal(name, "USDC");
      assert.equal(version, "2");
      assert.equal(chainId, BigInt(CHAIN_ID));
      assert.equal(verifyingContract.toLowerCase(), usdc.address.toLowerCase());
      assert.equal(await usdc.read.DOMAIN_SEPARATOR(), domainSeparator({ domain: domain() }));
    });

    it("lets anyone mint", async () => {
      const { usdc, bob } = await fixture();
      await viem.assertions.emitWithArgs(
        usdc.write.mint([bob.account.address, 42n], { account: bob.account }),
        usdc,
        "Transfer",
        [zeroAddress, bob.account.address, 42n],
      );
      assert.equal(await usdc.read.balanceOf([bob.account.address]), 42n);
    });

    it("LocalUSDC (the stack's token) has Circle's blacklist: only the deployer lists; a listed address neither sends nor receives", async () => {
      const { alice, bob, wallets, publicClient } = await fixture();
      const usdc = await viem.deployContract("LocalUSDC", [], { client: { wallet: wallets.admin } });
      const admin = { account: wallets.admin.account };
      await wait(publicClient, usdc.write.mint([alice.account.address, 10n], { account: alice.account }));
      assert.equal((await usdc.read.blacklister()).toLowerCase(), wallets.admin.account.address.toLowerCase());
      await viem.assertions.revertWithCustomError(
        usdc.write.blacklist([bob.account.address], { account: bob.account }),
        usdc,
        "LocalUSDCNotBlacklister",
      );
      await viem.assertions.emitWithArgs(usdc.write.blacklist([bob.account.address], admin), usdc, "BlacklistUpdated", [
        bob.account.address,
        true,
      ]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        usdc.write.transfer([bob.account.address, 1n], { account: alice.account }),
        usdc,
        "Blacklisted",
        [bob.account.address],
      );
      await viem.assertions.revertWithCustomError(
        usdc.write.mint([bob.account.address, 1n], { account: bob.account }),
        usdc,
        "Blacklisted",
      );
      await wait(publicClient, usdc.write.unBlacklist([bob.account.address], admin));
      await wait(publicClient, usdc.write.transfer([bob.account.address, 1n], { account: alice.account }));
      assert.equal(await usdc.read.balanceOf([bob.account.address]), 1n);
    });
  });

  describe("EIP-2612 permit", () => {
    it("sets the allowance from a signature and bumps the nonce", async () => {
      const { usdc, alice, bob, relayer, now, signPermit } = await fixture();
      const sig = vrs(await signPermit(bob.account.address, 7n, now + 600n));
      await viem.assertions.emitWithArgs(
        usdc.write.permit([alice.account.address, bob.account.address, 7n, now + 600n, sig.v, sig.r, sig.s], {
          account: relayer.account,
        }),
        usdc,
        "Approval",
        [alice.account.address, bob.account.address, 7n],
      );
      assert.equal(await usdc.read.allowance([alice.account.address, bob.account.address]), 7n);
      assert.equal(await usdc.read.nonces([alice.account.address]), 1n);
    });

    it("accepts the bytes-signature overload", async () => {
      const { usdc, alice, bob, now, signPermit } = await fixture();
      const sig = await signPermit(bob.account.address, 9n, now + 600n);
      await wait(
        await viem.getPublicClient(),
        usdc.write.permit([alice.account.address, bob.account.address, 9n, now + 600n, sig]),
      );
      assert.equal(await usdc.read.allowance([alice.account.address, bob.account.address]), 9n);
    });

    it("rejects a replayed permit", async () => {
      const { usdc, alice, bob, now, signPermit } = await fixture();
      const sig = vrs(await signPermit(bob.account.address, 7n, now + 600n));
      const args = [alice.account.address, bob.account.address, 7n, now + 600n, sig.v, sig.r, sig.s] as const;
      await usdc.write.permit(args);
      await viem.assertions.revertWithCustomErrorWithArgs(usdc.write.permit(args), usdc, "ERC2612InvalidSigner", [
        alice.account.address,
      ]);
    });

    it("rejects an expired permit", async () => {
      const { usdc, alice, bob, now, signPermit } = await fixture();
      const deadline = now - 1n;
      const sig = vrs(await signPermit(bob.account.address, 7n, deadline));
      await viem.assertions.revertWithCustomErrorWithArgs(
        usdc.write.permit([alice.account.address, bob.account.address, 7n, deadline, sig.v, sig.r, sig.s]),
        usdc,
        "ERC2612ExpiredSignature",
        [deadline],
      );
    });

    it("rejects a permit signed for another chain id", async () => {
      const { usdc, alice, bob, now, signPermit } = await fixture();
      const sig = vrs(await signPermit(bob.account.address, 7n, now + 600n, { chainId: 8453 }));
      await viem.assertions.revertWithCustomError(
        usdc.write.permit([alice.account.address, bob.account.address, 7n, now + 600n, sig.v, sig.r, sig.s]),
        usdc,
        "ERC2612InvalidSigner",
      );
    });

    it("rejects the high-s twin of a valid permit signature", async () => {
      const { usdc, alice, bob, now, signPermit } = await fixture();
      const good = await signPermit(bob.account.address, 7n, now + 600n);
      const twin = vrs(highSTwin(good));
      await viem.assertions.revertWithCustomError(
        usdc.write.permit([alice.account.address, bob.account.address, 7n, now + 600n, twin.v, twin.r, twin.s]),
        usdc,
        "ERC2612InvalidSigner",
      );
      const ok = vrs(good);
      await usdc.write.permit([alice.account.address, bob.account.address, 7n, now + 600n, ok.v, ok.r, ok.s]);
    });

    it("accepts ERC-1271 permits from smart accounts", async () => {
      const { usdc, alice, bob, now } = await fixture();
      const wallet = await viem.deployContract("ERC1271WalletMock", [alice.account.address]);
      const { signature: sig } = await signUsdcPermit(usdc, alice, {
        owner: wallet.address,
        spender: bob.account.address,
        value: 3n,
        deadline: now + 600n,
      });
      await usdc.write.permit([wallet.address, bob.account.address, 3n, now + 600n, sig]);
      assert.equal(await usdc.read.allowance([wallet.address, bob.account.address]), 3n);
    });
  });

  describe("EIP-3009", () => {
    it("exposes the standard typehashes (via signatures viem builds from the standard types)", async () => {
      const { usdc, alice, bob, auth, signTransfer } = await fixture();
      const a = auth();
      const sig = vrs(await signTransfer(a));
      const hash = usdc.write.transferWithAuthorization(
        [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig.v, sig.r, sig.s],
        { account: bob.account },
      );
      await viem.assertions.emitWithArgs(hash, usdc, "AuthorizationUsed", [alice.account.address, a.nonce]);
      await viem.assertions.emitWithArgs(hash, usdc, "Transfer", [a.from, a.to, a.value]);
      assert.equal(await usdc.read.authorizationState([alice.account.address, a.nonce]), true);
      assert.equal(await usdc.read.balanceOf([bob.account.address]), a.value);
    });

    it("transferWithAuthorization accepts the bytes-signature overload", async () => {
      const { usdc, bob, auth, signTransfer } = await fixture();
      const a = auth({ value: 11n });
      const sig = await signTransfer(a);
      await usdc.write.transferWithAuthorization([a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig]);
      assert.equal(await usdc.read.balanceOf([bob.account.address]), 11n);
    });

    it("rejects a replayed authorization (same nonce twice)", async () => {
      const { usdc, alice, auth, signTransfer } = await fixture();
      const a = auth();
      const sig = await signTransfer(a);
      const args = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig] as const;
      await usdc.write.transferWithAuthorization(args);
      await viem.assertions.revertWithCustomErrorWithArgs(
        usdc.write.transferWithAuthorization(args),
        usdc,
        "ERC3009UsedAuthorization",
        [alice.account.address, a.nonce],
      );
      // A different authorization reusing the nonce is rejected as well.
      const b = auth({ nonce: a.nonce, value: 1n });
      const sigB = vrs(await signTransfer(b));
      await viem.assertions.revertWithCustomError(
        usdc.write.transferWithAuthorization([
          b.from,
          b.to,
          b.value,
          b.validAfter,
          b.validBefore,
          b.nonce,
          sigB.v,
          sigB.r,
          sigB.s,
        ]),
        usdc,
        "ERC3009UsedAuthorization",
      );
    });

    it("rejects expired and not-yet-valid authorizations", async () => {
      const { usdc, auth, signTransfer, now } = await fixture();
      const expired = auth({ validBefore: now });
      const sigE = await signTransfer(expired);
      await viem.assertions.revertWithCustomErrorWithArgs(
        usdc.write.transferWithAuthorization([
          expired.from,
          expired.to,
          expired.value,
          expired.validAfter,
          expired.validBefore,
          expired.nonce,
          sigE,
        ]),
        usdc,
        "ERC3009InvalidAuthorizationTime",
        [expired.validAfter, expired.validBefore],
      );
      const early = auth({ validAfter: now + 1000n, validBefore: now + 2000n });
      const sigL = await signTransfer(early);
      const args = [early.from, early.to, early.value, early.validAfter, early.validBefore, early.nonce, sigL] as const;
      await viem.assertions.revertWithCustomError(
        usdc.write.transferWithAuthorization(args),
        usdc,
        "ERC3009InvalidAuthorizationTime",
      );
      await networkHelpers.time.increaseTo(now + 1001n);
      await usdc.write.transferWithAuthorization(args);
    });

    it("rejects an authorization signed for another chain id", async () => {
      const { usdc, auth, signTransfer } = await fixture();
      const a = auth();
      const sig = await signTransfer(a, 8453);
      await viem.assertions.revertWithCustomError(
        usdc.write.transferWithAuthorization([a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig]),
        usdc,
        "ERC3009InvalidSignature",
      );
    });

    it("rejects the high-s twin of a valid signature (both overloads) and tampered fields", async () => {
      const { usdc, auth, signTransfer, bob, alice, domain, publicClient } = await fixture();
      const a = auth();
      const good = await signTransfer(a);
      const twin = highSTwin(good);
      const digest = hashTypedData({
        domain: domain(),
        types: TRANSFER_TYPES,
        primaryType: "TransferWithAuthorization",
        message: a,
      });
      assert.equal((await rawEcrecover(publicClient, digest, twin)).toLowerCase(), alice.account.address.toLowerCase());
      const t = vrs(twin);
      await viem.assertions.revertWithCustomError(
        usdc.write.transferWithAuthorization([a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, twin]),
        usdc,
        "ERC3009InvalidSignature",
      );
      await viem.assertions.revertWithCustomError(
        usdc.write.transferWithAuthorization([
          a.from,
          a.to,
          a.value,
          a.validAfter,
          a.validBefore,
          a.nonce,
          t.v,
          t.r,
          t.s,
        ]),
        usdc,
        "ERC3009InvalidSignature",
      );
      await viem.assertions.revertWithCustomError(
        usdc.write.transferWithAuthorization([a.from, a.to, a.value + 1n, a.validAfter, a.validBefore, a.nonce, good]),
        usdc,
        "ERC3009InvalidSignature",
      );
      // Signed by someone other than `from`.
      const forged = await signTransfer(a, CHAIN_ID, bob);
      await viem.assertions.revertWithCustomError(
        usdc.write.transferWithAuthorization([a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, forged]),
        usdc,
        "ERC3009InvalidSignature",
      );
      await usdc.write.transferWithAuthorization([a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, good]);
    });

    it("receiveWithAuthorization only lets the payee submit", async () => {
      const { usdc, auth, signReceive, bob, relayer } = await fixture();
      const a = auth({ value: 21n });
      const sig = await signReceive(a);
      const sigVrs = vrs(sig);
      await viem.assertions.revertWithCustomErrorWithArgs(
        usdc.write.receiveWithAuthorization([a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig], {
          account: relayer.account,
        }),
        usdc,
        "ERC20InvalidReceiver",
        [bob.account.address],
      );
      await viem.assertions.emit(
        usdc.write.receiveWithAuthorization(
          [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sigVrs.v, sigVrs.r, sigVrs.s],
          { account: bob.account },
        ),
        usdc,
        "AuthorizationUsed",
      );
      assert.equal(await usdc.read.balanceOf([bob.account.address]), 21n);
      // A receive authorization cannot be used through transferWithAuthorization (different typehash).
      const b = auth({ value: 1n });
      const sigB = await signReceive(b);
      await viem.assertions.revertWithCustomError(
        usdc.write.transferWithAuthorization([b.from, b.to, b.value, b.validAfter, b.validBefore, b.nonce, sigB]),
        usdc,
        "ERC3009InvalidSignature",
      );
    });

    it("cancelAuthorization burns the nonce (both overloads)", async () => {
      const { usdc, alice, bob, auth, signTransfer, signCancel } = await fixture();
      const a = auth();
      const sig = await signTransfer(a);
      const cancel = await signCancel(alice.account.address, a.nonce);
      await viem.assertions.emitWithArgs(
        usdc.write.cancelAuthorization([alice.account.address, a.nonce, cancel], { account: bob.account }),
        usdc,
        "AuthorizationCanceled",
        [alice.account.address, a.nonce],
      );
      assert.equal(await usdc.read.authorizationState([alice.account.address, a.nonce]), true);
      await viem.assertions.revertWithCustomError(
        usdc.write.transferWithAuthorization([a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig]),
        usdc,
        "ERC3009UsedAuthorization",
      );
      const n2 = bytes32("cancel-2");
      const c2 = vrs(await signCancel(alice.account.address, n2));
      await usdc.write.cancelAuthorization([alice.account.address, n2, c2.v, c2.r, c2.s]);
      assert.equal(await usdc.read.authorizationState([alice.account.address, n2]), true);
      const forged = await signCancel(alice.account.address, bytes32("cancel-3"), bob);
      await viem.assertions.revertWithCustomError(
        usdc.write.cancelAuthorization([alice.account.address, bytes32("cancel-3"), forged]),
        usdc,
        "ERC3009InvalidSignature",
      );
    });

    it("supports ERC-1271 smart-account authorizations", async () => {
      const { usdc, alice, bob, auth, domain } = await fixture();
      const wallet = await viem.deployContract("ERC1271WalletMock", [alice.account.address]);
      await usdc.write.mint([wallet.address, 100n]);
      const a = auth({ from: wallet.address, value: 60n });
      const sig = await alice.signTypedData({
        account: alice.account,
        domain: domain(),
        types: TRANSFER_TYPES,
        primaryType: "TransferWithAuthorization",
        message: a,
      });
      await usdc.write.transferWithAuthorization([a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig]);
      assert.equal(await usdc.read.balanceOf([bob.account.address]), 60n);
      assert.equal(await usdc.read.authorizationState([wallet.address, a.nonce]), true);
    });
  });
});
