// ERC-7677 carries the UserOperation in its JSON-RPC form (v0.8: hex quantities, factory/factoryData, optional
// paymaster fields). This parses it, computes the hash VerifyingPaymaster.getHash signs, and the most the operation
// can cost the paymaster.
import { z } from "@hono/zod-openapi";
import {
  type Address,
  concatHex,
  encodeAbiParameters,
  type Hex,
  isAddress,
  isHex,
  keccak256,
  padHex,
  toHex,
} from "viem";

const hex = z.string().refine((v) => isHex(v, { strict: true }), "0x-prefixed hex");
const quantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]{1,64}$/, "hex quantity")
  .transform((v) => BigInt(v));
const optionalQuantity = quantity.optional().transform((v) => v ?? 0n);
const address = z
  .string()
  .refine((v) => isAddress(v, { strict: false }), "an address")
  .transform((v) => v as Address);

/** An EIP-7702 authorization the bundler puts in the bundle's transaction (ERC-7769 `eip7702Auth`). */
const eip7702Auth = z.object({
  address,
  chainId: hex,
  nonce: hex,
  r: hex,
  s: hex,
  yParity: hex,
});

/** The RPC UserOperation (v0.7/v0.8 shape). Gas fields may be absent or zero when stub data is asked for. */
export const rpcUserOperation = z.object({
  sender: address,
  nonce: quantity,
  factory: address.or(z.literal("0x7702")).optional(),
  factoryData: hex.optional(),
  callData: hex,
  callGasLimit: optionalQuantity,
  verificationGasLimit: optionalQuantity,
  preVerificationGas: optionalQuantity,
  maxFeePerGas: optionalQuantity,
  maxPriorityFeePerGas: optionalQuantity,
  paymasterVerificationGasLimit: optionalQuantity,
  paymasterPostOpGasLimit: optionalQuantity,
  eip7702Auth: eip7702Auth.optional(),
});
export type UserOperation = z.infer<typeof rpcUserOperation>;

const u128 = (v: bigint) => padHex(toHex(v), { size: 16 });

/** The EntryPoint's EIP-7702 init-code marker (the factory field of an operation for a delegated EOA). */
export const isEip7702Marker = (factory: UserOperation["factory"]): boolean =>
  factory === "0x7702" ||
  (factory !== undefined && factory.toLowerCase() === "0x7702000000000000000000000000000000000000");

/** `initCode` as the EntryPoint receives it (factory ++ factoryData, or empty). */
export const initCodeOf = (op: UserOperation): Hex =>
  op.factory ? concatHex([op.factory, op.factoryData ?? "0x"]) : "0x";

/**
 * VerifyingPaymaster.getHash(packedUserOp, validUntil, validAfter), computed without a chain call. `delegate` is the
 * sender's EIP-7702 delegate as the chain will have it during validation (zero for a sender that is not a delegated
 * EOA): the contract reads it from the sender's code.
 */
export function paymasterHash(
  op: Omit<UserOperation, "eip7702Auth">,
  paymaster: { chainId: number; address: Address; validUntil: number; validAfter: number; delegate: Address },
): Hex {
  return keccak256(
    encodeAbiParameters(
      [
        { type: "address" },
        { type: "uint256" },
        { type: "bytes32" },
        { type: "address" },
        { type: "bytes32" },
        { type: "bytes32" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "bytes32" },
        { type: "uint256" },
        { type: "address" },
        { type: "uint48" },
        { type: "uint48" },
      ],
      [
        op.sender,
        op.nonce,
        keccak256(initCodeOf(op)),
        paymaster.delegate,
        keccak256(op.callData as Hex),
        concatHex([u128(op.verificationGasLimit), u128(op.callGasLimit)]),
        BigInt(concatHex([u128(op.paymasterVerificationGasLimit), u128(op.paymasterPostOpGasLimit)])),
        op.preVerificationGas,
        concatHex([u128(op.maxPriorityFeePerGas), u128(op.maxFeePerGas)]),
        BigInt(paymaster.chainId),
        paymaster.address,
        paymaster.validUntil,
        paymaster.validAfter,
      ],
    ),
  );
}

/** All the gas the operation may use, paid by the paymaster. */
export const totalGasLimit = (op: UserOperation): bigint =>
  op.verificationGasLimit +
  op.callGasLimit +
  op.preVerificationGas +
  op.paymasterVerificationGasLimit +
  op.paymasterPostOpGasLimit;

/** The most the EntryPoint can take from the paymaster's deposit for this operation (its prefund). */
export const maxCostWei = (op: UserOperation): bigint => totalGasLimit(op) * op.maxFeePerGas;

/** `paymasterData` = abi.encode(uint48 validUntil, uint48 validAfter) ++ signature. */
export const paymasterData = (validUntil: number, validAfter: number, signature: Hex): Hex =>
  concatHex([encodeAbiParameters([{ type: "uint48" }, { type: "uint48" }], [validUntil, validAfter]), signature]);

/** A well-formed signature that recovers to nobody useful: stub data for gas estimation (ERC-7677). */
export const STUB_SIGNATURE: Hex = `0x${"ff".repeat(64)}1c`;

/**
 * The bundle overheads ERC-4337 bundlers charge through preVerificationGas (Alto 0.0.20's defaults: the 21,000
 * transaction stipend, the bundle's fixed cost, the per-operation cost, an EIP-7702 authorization's 25,000, 9.2 gas
 * per 32-byte word of call data), and EIP-7623's floor price of 10 gas per calldata token (a zero byte is one token,
 * any other byte four).
 */
const PVG = {
  stipend: 21_000n,
  bundle: 9_830n,
  perOperation: 7_260n,
  authorization: 25_000n,
  perCallDataWordMilli: 9_200n,
  perToken: 10n,
} as const;

const MAX_U128 = (1n << 128n) - 1n;
/** paymasterAndData as the EntryPoint receives it: paymaster, two gas limits, window and a 65-byte signature. */
const PAYMASTER_AND_DATA_BYTES = 20 + 32 + 64 + 65;
/** The account's ECDSA signature (SimpleAccount, Simple7702Account). */
const ACCOUNT_SIGNATURE_BYTES = 65;

/**
 * The most preVerificationGas the operation's size justifies: the packed operation's calldata tokens at EIP-7623's
 * floor price plus every bundle overhead, the way the bundler computes it but with each term at its upper bound
 * (gas fields, paymaster data and signature counted as non-zero bytes). Anything above it is gas the EntryPoint would
 * pay to the bundle's beneficiary for nothing.
 */
export function preVerificationGasBound(op: UserOperation): bigint {
  const ff = (bytes: number): Hex => `0x${"ff".repeat(bytes)}`;
  const packed = encodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { type: "address" },
          { type: "uint256" },
          { type: "bytes" },
          { type: "bytes" },
          { type: "bytes32" },
          { type: "uint256" },
          { type: "bytes32" },
          { type: "bytes" },
          { type: "bytes" },
        ],
      },
    ],
    [
      [
        op.sender,
        op.nonce,
        initCodeOf(op),
        op.callData as Hex,
        ff(32),
        MAX_U128,
        ff(32),
        ff(PAYMASTER_AND_DATA_BYTES),
        ff(ACCOUNT_SIGNATURE_BYTES),
      ],
    ],
  );
  let tokens = 0n;
  for (let i = 2; i < packed.length; i += 2) tokens += packed.slice(i, i + 2) === "00" ? 1n : 4n;
  const callDataWords = BigInt(Math.ceil((op.callData.length - 2) / 64));
  return (
    PVG.stipend +
    PVG.bundle +
    PVG.perOperation +
    (op.eip7702Auth ? PVG.authorization : 0n) +
    (callDataWords * PVG.perCallDataWordMilli) / 1000n +
    tokens * PVG.perToken
  );
}
