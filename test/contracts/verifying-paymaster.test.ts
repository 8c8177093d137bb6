import assert from "node:assert/strict";
import { network } from "hardhat";
import { describe, it } from "mocha";
import { type Address, concatHex, type Hex, padHex, toHex, zeroAddress, zeroHash } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { paymasterData, paymasterHash, type UserOperation } from "../../api/src/paymaster/user-operation.ts";
import { entryPointArtifact } from "../../ignition/account-abstraction.ts";

const { viem, networkHelpers } = await network.create();
const CHAIN_ID = 84532;

async function deploy() {
  const [deployer, owner, other] = await viem.getWalletClients();
  const publicClient = await viem.getPublicClient();
  // The published EntryPoint v0.8 bytecode (its address here is not the canonical one: no CREATE2 deployer).
  const hash = await deployer!.deployContract({ abi: entryPointArtifact.abi, bytecode: entryPointArtifact.bytecode });
  const entryPoint = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress as Address;
  const signer = privateKeyToAccount(generatePrivateKey());
  const paymaster = await viem.deployContract("VerifyingPaymaster", [
    entryPoint,
    signer.address,
    owner!.account.address,
  ]);
  return { publicClient, entryPoint, signer, paymaster, owner: owner!, other: other! };
}

const u128 = (v: bigint) => padHex(toHex(v), { size: 16 });

/** A UserOperation with every field set, and its packed form carrying `data` as paymaster data. */
function operation(overrides: Partial<UserOperation> = {}) {
  const op: UserOperation = {
    sender: "0x1111111111111111111111111111111111111111",
    nonce: (7n << 64n) + 3n,
    factory: "0x2222222222222222222222222222222222222222",
    factoryData: "0xdeadbeef",
    callData: "0xb61d27f60000",
    callGasLimit: 123_456n,
    verificationGasLimit: 78_901n,
    preVerificationGas: 45_678n,
    maxFeePerGas: 3_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    paymasterVerificationGasLimit: 60_000n,
    paymasterPostOpGasLimit: 0n,
    ...overrides,
  };
  const packed = (paymaster: Address, data: Hex) => ({
    sender: op.sender,
    nonce: op.nonce,
    initCode: op.factory ? concatHex([op.factory, op.factoryData ?? "0x"]) : ("0x" as Hex),
    callData: op.callData as Hex,
    accountGasLimits: concatHex([u128(op.verificationGasLimit), u128(op.callGasLimit)]),
    preVerificationGas: op.preVerificationGas,
    gasFees: concatHex([u128(op.maxPriorityFeePerGas), u128(op.maxFeePerGas)]),
    paymasterAndData: concatHex([
      paymaster,
      u128(op.paymasterVerificationGasLimit),
      u128(op.paymasterPostOpGasLimit),
      data,
    ]),
    signature: "0x" as Hex,
  });
  return { op, packed };
}

/** validationData = sigFailed | validUntil << 160 | validAfter << 208 (ERC-4337). */
const unpack = (v: bigint) => ({
  sigFailed: (v & ((1n << 160n) - 1n)) === 1n,
  validUntil: Number((v >> 160n) & ((1n << 48n) - 1n)),
  validAfter: Number(v >> 208n),
});

describe("VerifyingPaymaster", () => {
  it("getHash equals the API's paymasterHash, which signs without a chain call", async () => {
    const { paymaster } = await networkHelpers.loadFixture(deploy);
    for (const overrides of [{}, { factory: undefined, factoryData: undefined }, { paymasterPostOpGasLimit: 5n }]) {
      const { op, packed } = operation(overrides);
      const onChain = await paymaster.read.getHash([packed(paymaster.address, "0x"), 1_900_000_000, 17]);
      const offChain = paymasterHash(op, {
        chainId: CHAIN_ID,
        address: paymaster.address,
        validUntil: 1_900_000_000,
        validAfter: 17,
      });
      assert.equal(onChain, offChain);
    }
  });

  it("accepts the signer's signature with its window, flags any other as a failed signature", async () => {
    const { paymaster, entryPoint, signer, publicClient } = await networkHelpers.loadFixture(deploy);
    const { op, packed } = operation();
    const validUntil = 1_900_000_000;
    const sign = (key: typeof signer) =>
      key.signMessage({
        message: {
          raw: paymasterHash(op, { chainId: CHAIN_ID, address: paymaster.address, validUntil, validAfter: 0 }),
        },
      });
    const validate = async (data: Hex, from: Address = entryPoint) =>
      (
        await publicClient.simulateContract({
          address: paymaster.address,
          abi: paymaster.abi,
          functionName: "validatePaymasterUserOp",
          args: [packed(paymaster.address, data), zeroHash, 0n],
          account: from,
        })
      ).result[1];

    const good = unpack(await validate(paymasterData(validUntil, 0, await sign(signer))));
    assert.deepEqual(good, { sigFailed: false, validUntil, validAfter: 0 });
    const stranger = privateKeyToAccount(generatePrivateKey());
    assert.equal(unpack(await validate(paymasterData(validUntil, 0, await sign(stranger)))).sigFailed, true);
    // The same signature over a different window (or any other field) does not verify.
    assert.equal(unpack(await validate(paymasterData(validUntil + 1, 0, await sign(signer)))).sigFailed, true);
    // Garbage of the right length is a failed signature, not a revert (gas estimation uses such a stub).
    assert.equal(unpack(await validate(paymasterData(0, 0, `0x${"ff".repeat(64)}1c`))).sigFailed, true);
    await assert.rejects(validate("0x1234"), /VerifyingPaymasterInvalidData/);
    await assert.rejects(
      validate(paymasterData(validUntil, 0, await sign(signer)), signer.address),
      /Sender not EntryPoint/,
    );
  });

  it("is owned by the given owner, who alone rotates the signer", async () => {
    const { paymaster, owner, other, signer } = await networkHelpers.loadFixture(deploy);
    assert.equal((await paymaster.read.owner()).toLowerCase(), owner.account.address.toLowerCase());
    assert.equal((await paymaster.read.verifyingSigner()).toLowerCase(), signer.address.toLowerCase());
    const next = privateKeyToAccount(generatePrivateKey()).address;
    await assert.rejects(
      paymaster.write.setVerifyingSigner([next], { account: other.account }),
      /OwnableUnauthorizedAccount/,
    );
    await assert.rejects(
      paymaster.write.setVerifyingSigner([zeroAddress], { account: owner.account }),
      /VerifyingPaymasterZeroSigner/,
    );
    await viem.assertions.emitWithArgs(
      paymaster.write.setVerifyingSigner([next], { account: owner.account }),
      paymaster,
      "VerifyingSignerUpdated",
      [signer.address, next],
    );
    assert.equal((await paymaster.read.verifyingSigner()).toLowerCase(), next.toLowerCase());
  });
});
