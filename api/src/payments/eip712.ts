// Minimal EIP-712 hashing for the two flat structs the payment gate verifies (spec Payment, EIP-3009
// TransferWithAuthorization), plus secp256k1 public-key recovery straight on @noble/curves.
// viem's recoverTypedDataAddress does the same work with generic type walking and hex round trips; this path
// precomputes the domain separator and type hash once and stays in bytes (see docs/decisions.md for numbers).
import { secp256k1 } from "@noble/curves/secp256k1";
import { type Address, getAddress, type Hex, hexToBytes, keccak256, stringToBytes, toHex } from "viem";

export type FieldType = "address" | "uint256" | "bytes32" | "string";
export interface StructType {
  name: string;
  fields: readonly { name: string; type: FieldType }[];
}
export interface Domain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

const keccak = (data: Uint8Array): Uint8Array => keccak256(data, "bytes");

function word(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 256n) throw new RangeError("uint256 out of range");
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0 && value > 0n; i--) {
    out[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  return out;
}

function encodeField(type: FieldType, value: unknown): Uint8Array {
  switch (type) {
    case "address": {
      const bytes = hexToBytes(value as Hex);
      if (bytes.length !== 20) throw new TypeError("address must be 20 bytes");
      const out = new Uint8Array(32);
      out.set(bytes, 12);
      return out;
    }
    case "uint256":
      return word(BigInt(value as bigint | string));
    case "bytes32": {
      const bytes = hexToBytes(value as Hex);
      if (bytes.length !== 32) throw new TypeError("bytes32 must be 32 bytes");
      return bytes;
    }
    case "string":
      return keccak(stringToBytes(value as string));
  }
}

/** A precomputed domain + type: `digest(message)` is the EIP-712 hash to sign. */
export class TypedStruct {
  private readonly typeHash: Uint8Array;
  private readonly prefix: Uint8Array;

  constructor(
    readonly domain: Domain,
    readonly type: StructType,
  ) {
    this.typeHash = keccak(stringToBytes(`${type.name}(${type.fields.map((f) => `${f.type} ${f.name}`).join(",")})`));
    const domainType = keccak(
      stringToBytes("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
    );
    const separator = keccak(
      concat([
        domainType,
        encodeField("string", domain.name),
        encodeField("string", domain.version),
        encodeField("uint256", BigInt(domain.chainId)),
        encodeField("address", domain.verifyingContract),
      ]),
    );
    this.prefix = concat([new Uint8Array([0x19, 0x01]), separator]);
  }

  digest(message: Record<string, unknown>): Uint8Array {
    const structHash = keccak(
      concat([this.typeHash, ...this.type.fields.map((f) => encodeField(f.type, message[f.name]))]),
    );
    return keccak(concat([this.prefix, structHash]));
  }

  /** viem/ethers `types` object for signTypedData. */
  get types(): Record<string, { name: string; type: string }[]> {
    return { [this.type.name]: this.type.fields.map((f) => ({ name: f.name, type: f.type })) };
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

const HALF_N = secp256k1.CURVE.n >> 1n;

export interface ParsedSignature {
  r: bigint;
  s: bigint;
  recovery: number;
}

/** Splits a 65-byte (r, s, v) signature; v may be 0/1 or 27/28. Throws on anything else. */
export function parseSignature(signature: string): ParsedSignature {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw new TypeError("signature must be 65 bytes of hex");
  const r = BigInt(signature.slice(0, 66));
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130, 132), 16);
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) throw new TypeError("signature v must be 27 or 28");
  return { r, s, recovery };
}

/** True when s is in the upper half of the curve order (the malleable twin of a canonical signature). */
export const isHighS = (sig: ParsedSignature): boolean => sig.s > HALF_N;

/** The canonical (low-s) form of a signature, as contracts using OpenZeppelin's ECDSA require. */
export function toLowS(sig: ParsedSignature): Hex {
  const s = isHighS(sig) ? secp256k1.CURVE.n - sig.s : sig.s;
  const recovery = isHighS(sig) ? sig.recovery ^ 1 : sig.recovery;
  return `0x${sig.r.toString(16).padStart(64, "0")}${s.toString(16).padStart(64, "0")}${(27 + recovery).toString(16)}`;
}

/** Recovers the signing address of a 32-byte digest. Throws when the signature is not a curve point. */
export function recoverAddress(digest: Uint8Array, sig: ParsedSignature): Address {
  const point = new secp256k1.Signature(sig.r, sig.s).addRecoveryBit(sig.recovery).recoverPublicKey(digest);
  const uncompressed = point.toRawBytes(false);
  return getAddress(toHex(keccak(uncompressed.subarray(1)).subarray(12)));
}
