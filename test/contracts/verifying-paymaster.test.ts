import assert from "node:assert/strict";
import { network } from "hardhat";
import { describe, it } from "mocha";
import {
  type Address,
  concatHex,
  createWalletClient,
  custom,
  type Hex,
  padHex,
  parseEther,
  toHex,
  zeroAddress,
  zeroHash,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { paymasterData, paymasterHash, type UserOperation } from "../../api/src/paymaster/user-operation.ts";
import { entryPointArtifact, simple7702AccountArtifact } from "../../ignition/account-abstraction.ts";

const { viem, networkHelpers, provider } = await network.create();
const CHAIN_ID = 84532;
const STAKE = parseEther("1");
const UNSTAKE_DELAY = 86_400;

async function deploy() {
  const [deployer, owner, other] = await viem.getWalletClients();
  const publicClient = await viem.getPublicClient();
  // The published EntryPoint v0.8 bytecode (its address here is not the canonical one: no CREATE2 deployer).
  const hash = await deployer!.deployContract({ abi: entryPointArtifact.abi, bytecode: entryPointArtifact.bytecode });
  const entryPoint = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress as Address;
  const signer = privateKeyToAccount(generatePrivateKey());
  const paymaster = await viem.deployContract(
    "VerifyingPaymaster",
    [entryPoint, signer.address, owner!.account.address, UNSTAKE_DELAY],
    { value: STAKE },
  );
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

/** The paymaster's validation of `userOp` called as `from` (the EntryPoint), unpacked. */
async function validatePaymaster(
  { publicClient, paymaster }: Pick<Awaited<ReturnType<typeof deploy>>, "publicClient" | "paymaster">,
  userOp: ReturnType<ReturnType<typeof operation>["packed"]>,
  from: Address,
) {
  const { result } = await publicClient.simulateContract({
    address: paymaster.address,
    abi: paymaster.abi,
    functionName: "validatePaymasterUserOp",
    args: [userOp, zeroHash, 0n],
    account: from,
  });
  return unpack(result[1]);
}

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
        delegate: zeroAddress,
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
          raw: paymasterHash(op, {
            chainId: CHAIN_ID,
            address: paymaster.address,
            validUntil,
            validAfter: 0,
            delegate: zeroAddress,
          }),
        },
      });
    const validate = (data: Hex, from: Address = entryPoint) =>
      validatePaymaster({ publicClient, paymaster }, packed(paymaster.address, data), from);

    const good = await validate(paymasterData(validUntil, 0, await sign(signer)));
    assert.deepEqual(good, { sigFailed: false, validUntil, validAfter: 0 });
    const stranger = privateKeyToAccount(generatePrivateKey());
    assert.equal((await validate(paymasterData(validUntil, 0, await sign(stranger)))).sigFailed, true);
    // The same signature over a different window (or any other field) does not verify.
    assert.equal((await validate(paymasterData(validUntil + 1, 0, await sign(signer)))).sigFailed, true);
    // Garbage of the right length is a failed signature, not a revert (gas estimation uses such a stub).
    assert.equal((await validate(paymasterData(0, 0, `0x${"ff".repeat(64)}1c`))).sigFailed, true);
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
  it("binds the sender's EIP-7702 delegate: an approval for one implementation fails once the EOA delegates to another", async () => {
    const { paymaster, entryPoint, signer, publicClient } = await networkHelpers.loadFixture(deploy);
    // An EOA of our own (local key) delegates by type-4 transactions sent by a funded local key.
    const eoa = privateKeyToAccount(generatePrivateKey());
    const sender = privateKeyToAccount(generatePrivateKey());
    await networkHelpers.setBalance(sender.address, parseEther("1"));
    const wallet = createWalletClient({ account: sender, chain: publicClient.chain, transport: custom(provider) });
    const delegateTo = async (implementation: Address) => {
      const authorization = await eoa.signAuthorization({
        address: implementation,
        chainId: CHAIN_ID,
        nonce: await publicClient.getTransactionCount({ address: eoa.address }),
      });
      const hash = await wallet.sendTransaction({ to: eoa.address, authorizationList: [authorization] });
      assert.equal((await publicClient.waitForTransactionReceipt({ hash })).status, "success");
    };
    // Two deployments of the published Simple7702Account: the canonical one and a copy elsewhere.
    const deployAccount = async () => {
      const hash = await wallet.deployContract({
        abi: simple7702AccountArtifact.abi,
        bytecode: simple7702AccountArtifact.bytecode,
      });
      return (await publicClient.waitForTransactionReceipt({ hash })).contractAddress as Address;
    };
    const implementation = await deployAccount();
    const other = await deployAccount();
    const { op, packed } = operation({ sender: eoa.address, factory: undefined, factoryData: undefined });
    const validUntil = 1_900_000_000;
    const hashFor = (delegate: Address) =>
      paymasterHash(op, { chainId: CHAIN_ID, address: paymaster.address, validUntil, validAfter: 0, delegate });
    const onChain = () => paymaster.read.getHash([packed(paymaster.address, "0x"), validUntil, 0]);

    assert.equal(await paymaster.read.delegateOf([eoa.address]), zeroAddress);
    assert.equal(await onChain(), hashFor(zeroAddress));
    await delegateTo(implementation);
    assert.equal((await paymaster.read.delegateOf([eoa.address])).toLowerCase(), implementation.toLowerCase());
    assert.equal(await onChain(), hashFor(implementation));
    assert.notEqual(hashFor(implementation), hashFor(other));

    const approval = paymasterData(
      validUntil,
      0,
      await signer.signMessage({ message: { raw: hashFor(implementation) } }),
    );
    const validate = async () =>
      (await validatePaymaster({ publicClient, paymaster }, packed(paymaster.address, approval), entryPoint)).sigFailed;
    assert.equal(await validate(), false, "approved while the EOA runs the approved implementation");
    await delegateTo(other);
    assert.equal(await validate(), true, "the same approval fails once the EOA delegates elsewhere");
  });

  it("is staked at deployment (ERC-7562 STO-031); only its owner unlocks and withdraws the stake", async () => {
    const { paymaster, entryPoint, owner, other, publicClient } = await networkHelpers.loadFixture(deploy);
    const info = () =>
      publicClient.readContract({
        address: entryPoint,
        abi: entryPointArtifact.abi as never,
        functionName: "getDepositInfo",
        args: [paymaster.address],
      }) as Promise<{ staked: boolean; stake: bigint; unstakeDelaySec: number; withdrawTime: number }>;
    const staked = await info();
    assert.equal(staked.staked, true);
    assert.equal(staked.stake, STAKE);
    assert.equal(staked.unstakeDelaySec, UNSTAKE_DELAY);
    await assert.rejects(paymaster.write.unlockStake({ account: other.account }), /OwnableUnauthorizedAccount/);
    await paymaster.write.unlockStake({ account: owner.account });
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    await assert.rejects(
      paymaster.write.withdrawStake([recipient], { account: owner.account }),
      /Stake withdrawal is not due/,
    );
    await networkHelpers.time.increase(UNSTAKE_DELAY);
    await assert.rejects(
      paymaster.write.withdrawStake([recipient], { account: other.account }),
      /OwnableUnauthorizedAccount/,
    );
    await paymaster.write.withdrawStake([recipient], { account: owner.account });
    assert.equal(await publicClient.getBalance({ address: recipient }), STAKE);
    assert.equal((await info()).stake, 0n);
    // Deployed without a value, it is not staked.
    const unstaked = await viem.deployContract("VerifyingPaymaster", [entryPoint, recipient, recipient, UNSTAKE_DELAY]);
    const none = (await publicClient.readContract({
      address: entryPoint,
      abi: entryPointArtifact.abi as never,
      functionName: "getDepositInfo",
      args: [unstaked.address],
    })) as { staked: boolean };
    assert.equal(none.staked, false);
  });
});
