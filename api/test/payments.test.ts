import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SPEC_PAYMENT_TYPES } from "@agenthub/common/protocol";
import { secp256k1 } from "@noble/curves/secp256k1";
import { type Hex, hashTypedData, hexToBytes, recoverTypedDataAddress, toHex, zeroAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { isHighS, parseSignature, recoverAddress, toLowS } from "../src/payments/eip712.ts";
import { PaymentError } from "../src/payments/errors.ts";
import { checkSpecRules, parseSpecPayment, specMessage, specPaymentStruct } from "../src/payments/spec-scheme.ts";
import {
  AUTHORIZATION_TYPES,
  authorizationStruct,
  checkExactRules,
  checkWindow,
  parseExactPayment,
} from "../src/payments/x402.ts";

const account = privateKeyToAccount(generatePrivateKey());
const recipient = privateKeyToAccount(generatePrivateKey()).address;
const chainId = 84532;

async function signSpec(overrides: Record<string, unknown> = {}) {
  const message = {
    payer: account.address,
    recipient,
    amount: 1_000_000_000_000_000n,
    endpoint: "/api/intelligence/search",
    nonce: "n-1",
    ...overrides,
  };
  const signature = await account.signTypedData({
    domain: { name: "AgentHub x402", version: "1", chainId, verifyingContract: zeroAddress },
    types: SPEC_PAYMENT_TYPES,
    primaryType: "Payment",
    message,
  });
  return { ...message, amount: message.amount.toString(), signature };
}

/** The other valid signature over the same digest: (r, n - s, v ^ 1). */
function highSTwin(signature: Hex): Hex {
  const sig = parseSignature(signature);
  const s = secp256k1.CURVE.n - sig.s;
  return `0x${sig.r.toString(16).padStart(64, "0")}${s.toString(16).padStart(64, "0")}${(28 - sig.recovery).toString(16)}`;
}

describe("payment signatures", () => {
  it("hashes the spec Payment exactly like viem and recovers the payer", async () => {
    const signed = await signSpec();
    const p = parseSpecPayment(JSON.stringify(signed));
    const digest = specPaymentStruct(chainId).digest(specMessage(p));
    const viemDigest = hashTypedData({
      domain: { name: "AgentHub x402", version: "1", chainId, verifyingContract: zeroAddress },
      types: SPEC_PAYMENT_TYPES,
      primaryType: "Payment",
      message: specMessage(p),
    });
    assert.equal(toHex(digest), viemDigest);
    assert.equal(recoverAddress(digest, p.parsed), account.address);
    assert.equal(
      await recoverTypedDataAddress({
        domain: { name: "AgentHub x402", version: "1", chainId, verifyingContract: zeroAddress },
        types: SPEC_PAYMENT_TYPES,
        primaryType: "Payment",
        message: specMessage(p),
        signature: p.signature,
      }),
      account.address,
    );
  });

  it("a high-s twin recovers the same payer and normalizes back to the original", async () => {
    const signed = await signSpec();
    const twin = highSTwin(signed.signature);
    assert.notEqual(twin, signed.signature);
    const p = parseSpecPayment(JSON.stringify({ ...signed, signature: twin }));
    assert.ok(isHighS(p.parsed));
    assert.equal(recoverAddress(specPaymentStruct(chainId).digest(specMessage(p)), p.parsed), account.address);
    assert.equal(toLowS(p.parsed).toLowerCase(), signed.signature.toLowerCase());
  });

  it("hashes EIP-3009 TransferWithAuthorization like viem", async () => {
    const asset = { address: recipient, name: "USDC", version: "2", chainId };
    const struct = authorizationStruct(asset);
    const message = {
      from: account.address,
      to: recipient,
      value: 1000n,
      validAfter: 0n,
      validBefore: 2n ** 40n,
      nonce: toHex(hexToBytes(generatePrivateKey())),
    };
    const domain = { name: "USDC", version: "2", chainId, verifyingContract: recipient };
    assert.equal(
      toHex(struct.digest(message)),
      hashTypedData({ domain, types: AUTHORIZATION_TYPES, primaryType: "TransferWithAuthorization", message }),
    );
  });
});

describe("spec payment rules", () => {
  const rules = { chainId, recipient, price: 1_000_000_000_000_000n, endpoint: "/api/intelligence/search" };
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      assert.ok(error instanceof PaymentError);
      return `${error.status} ${error.code}`;
    }
    return "ok";
  };

  it("rejects malformed headers as 401 INVALID_PAYMENT", async () => {
    const signed = await signSpec();
    for (const bad of [
      "{not json",
      "[]",
      JSON.stringify({ ...signed, payer: "0x12" }),
      JSON.stringify({ ...signed, amount: "-1" }),
      JSON.stringify({ ...signed, amount: "1e18" }),
      JSON.stringify({ ...signed, nonce: "" }),
      JSON.stringify({ ...signed, nonce: "x".repeat(129) }),
      JSON.stringify({ ...signed, signature: "0x1234" }),
      JSON.stringify({ ...signed, signature: `${signed.signature.slice(0, 130)}1d` }),
    ])
      assert.equal(
        code(() => parseSpecPayment(bad)),
        "401 INVALID_PAYMENT",
        bad,
      );
  });

  it("checks recipient, then amount, then endpoint", async () => {
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const signedBase = await signSpec();
    const p = (o: Record<string, unknown>) => parseSpecPayment(JSON.stringify(o));
    assert.equal(
      code(() => checkSpecRules(p(signedBase), rules)),
      "ok",
    );
    assert.equal(
      code(() => checkSpecRules(p({ ...signedBase, recipient: stranger }), rules)),
      "401 INVALID_PAYMENT",
    );
    assert.equal(
      code(() => checkSpecRules(p({ ...signedBase, amount: "999" }), rules)),
      "402 INSUFFICIENT_AMOUNT",
    );
    assert.equal(
      code(() => checkSpecRules(p({ ...signedBase, endpoint: "/x" }), rules)),
      "400 INVALID_ENDPOINT",
    );
    // Recipient is checked before the amount, the amount before the endpoint.
    assert.equal(
      code(() => checkSpecRules(p({ ...signedBase, recipient: stranger, amount: "1", endpoint: "/x" }), rules)),
      "401 INVALID_PAYMENT",
    );
    assert.equal(
      code(() => checkSpecRules(p({ ...signedBase, amount: "1", endpoint: "/x" }), rules)),
      "402 INSUFFICIENT_AMOUNT",
    );
  });
});

describe("x402 exact payload rules", () => {
  const asset = { address: recipient, name: "USDC", version: "2", chainId };
  const offer = {
    asset,
    payTo: recipient,
    price: { spec: 1n, usdc: 1000n, description: "search" },
    resourceUrl: "http://localhost/api/intelligence/search",
  };
  const payload = (auth: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
    x402Version: 2,
    accepted: { scheme: "exact", network: "eip155:84532", asset: recipient, amount: "1000", payTo: recipient },
    payload: {
      signature: `0x${"11".repeat(64)}1b`,
      authorization: {
        from: account.address,
        to: recipient,
        value: "1000",
        validAfter: "0",
        validBefore: "2000000000",
        nonce: `0x${"ab".repeat(32)}`,
        ...auth,
      },
    },
    ...extra,
  });
  const outcome = (fn: () => unknown) => {
    try {
      fn();
      return "ok";
    } catch (error) {
      assert.ok(error instanceof PaymentError);
      return `${error.status} ${error.code}`;
    }
  };
  const path = "/api/intelligence/search";

  it("accepts v1 and v2 shapes and refuses other schemes, networks and assets", () => {
    assert.equal(
      outcome(() => parseExactPayment(payload(), offer)),
      "ok",
    );
    const v1 = { x402Version: 1, scheme: "exact", network: "base-sepolia", payload: payload().payload };
    assert.equal(
      outcome(() => parseExactPayment(v1, offer)),
      "ok",
    );
    assert.equal(
      outcome(() => parseExactPayment({ ...v1, network: "base" }, offer)),
      "401 INVALID_PAYMENT",
    );
    assert.equal(
      outcome(() => parseExactPayment({ ...v1, scheme: "upto" }, offer)),
      "401 INVALID_PAYMENT",
    );
    assert.equal(
      outcome(() => parseExactPayment({ ...v1, x402Version: 3 }, offer)),
      "401 INVALID_PAYMENT",
    );
    const otherAsset = payload();
    otherAsset.accepted.asset = account.address;
    assert.equal(
      outcome(() => parseExactPayment(otherAsset, offer)),
      "401 INVALID_PAYMENT",
    );
    assert.equal(
      outcome(() => parseExactPayment(payload({ nonce: "0x12" }), offer)),
      "401 INVALID_PAYMENT",
    );
  });

  it("checks recipient, exact value, resource and the validity window", () => {
    const rules = (auth: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      outcome(() => checkExactRules(parseExactPayment(payload(auth, extra), offer), offer, path));
    assert.equal(rules({}), "ok");
    assert.equal(rules({ to: account.address }), "401 INVALID_PAYMENT");
    assert.equal(rules({ value: "999" }), "402 INSUFFICIENT_AMOUNT");
    assert.equal(rules({ value: "1001" }), "401 INVALID_PAYMENT");
    assert.equal(rules({}, { resource: { url: "http://localhost/api/attestations/create" } }), "400 INVALID_ENDPOINT");
    assert.equal(rules({}, { resource: { url: `http://x${path}` } }), "ok");
    const p = parseExactPayment(payload({ validAfter: "100", validBefore: "200" }), offer);
    assert.equal(
      outcome(() => checkWindow(p.authorization, 99n)),
      "401 INVALID_PAYMENT",
    );
    assert.equal(
      outcome(() => checkWindow(p.authorization, 150n)),
      "ok",
    );
    assert.equal(
      outcome(() => checkWindow(p.authorization, 195n)),
      "401 INVALID_PAYMENT",
    );
  });
});

describe("x402 protocol constants", () => {
  it("TransferWithAuthorization matches @x402/evm's EIP-712 type", async () => {
    const { authorizationTypes } = await import("@x402/evm");
    assert.deepEqual(
      AUTHORIZATION_TYPES.TransferWithAuthorization.map((f) => ({ ...f })),
      authorizationTypes.TransferWithAuthorization.map((f: { name: string; type: string }) => ({ ...f })),
    );
  });
});
