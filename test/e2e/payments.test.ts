// Payment gate end to end: the spec's x-payment (EIP-712 Payment) and standard x402 (EIP-3009 USDC, paid by the
// official @x402/fetch client), error codes, exactly-once under parallel and multi-process replay, high-s twins,
// and settlement reconciliation after a receipt timeout. Real chain, real Postgres, real HTTP.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { TestUSDCAbi } from "@agenthub/common/generated/abis";
import { ExactEvmScheme } from "@x402/evm";
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import type { Address, Hex, LocalAccount } from "viem";
import { repoRoot } from "../../scripts/lib/chain.ts";
import { type Managed, startProcess } from "../../scripts/lib/process.ts";
import { claimAgent, faucet, registerAgent, usdcOf, walletFromKey } from "../support/agents.ts";
import { signPaymentObject } from "../support/payments.ts";
import { api, db, deployments, newWallet, publicClient, rpc, stack, waitUntil } from "../support/stack.ts";

const SEARCH = "/api/intelligence/search";
const BODY = { query: "anything" };
let recipient: Address;
const spawned: Managed[] = [];

after(async () => {
  for (const p of spawned.reverse()) await p.stop();
  await db.end();
});

before(async () => {
  recipient = (await api("GET", "/api/config")).body.platformRecipient;
});

// ---------- helpers ----------

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const tsx = join(repoRoot, "node_modules", ".bin", "tsx");

/** A second API process on the same database and chain (optionally with its own relayer and env). */
async function spawnApi(extra: Record<string, string> = {}): Promise<string> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = startProcess("api-2", tsx, ["api/src/main.ts"], {
    cwd: repoRoot,
    env: {
      ...stack.env,
      PORT: String(port),
      PUBLIC_URL: `http://localhost:${port}`,
      JOBS_ENABLED: "false",
      TRUST_PROXY: "1",
      LOG_LEVEL: "warn",
      ...extra,
    },
    quiet: process.env.E2E_VERBOSE !== "true",
  });
  spawned.push(proc);
  await waitUntil(
    "second API",
    async () => {
      if (proc.child.exitCode !== null) throw new Error("second API exited");
      return (await fetch(`${url}/health`).catch(() => undefined))?.ok;
    },
    60_000,
  );
  return url;
}

/** A second relayer with its own (funded) key and a short receipt timeout. */
async function spawnRelayer(receiptTimeoutMs: number): Promise<string> {
  const key = `0x${randomBytes(32).toString("hex")}` as Hex;
  const { privateKeyToAccount } = await import("viem/accounts");
  await faucet(privateKeyToAccount(key).address, 0n, 10n ** 18n);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = startProcess("relayer-2", tsx, ["relayer/src/main.ts"], {
    cwd: repoRoot,
    env: {
      ...stack.env,
      RELAYER_PORT: String(port),
      RELAYER_PRIVATE_KEY: key,
      RECEIPT_TIMEOUT_MS: String(receiptTimeoutMs),
      LOCAL_CHAIN: "false",
    },
    quiet: process.env.E2E_VERBOSE !== "true",
  });
  spawned.push(proc);
  await waitUntil("second relayer", async () => (await fetch(`${url}/health`).catch(() => undefined))?.ok, 60_000);
  return url;
}

async function post(baseUrl: string, headers: Record<string, string>, body: unknown = BODY) {
  const res = await fetch(`${baseUrl}${SEARCH}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers };
}

const specHeader = async (account: LocalAccount, overrides: Record<string, unknown> = {}) =>
  JSON.stringify({ ...(await signPaymentObject(account, { recipient, endpoint: SEARCH })), ...overrides });

/** Order of the secp256k1 group. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** (r, n - s, v ^ 1): the other valid ECDSA signature over the same digest. */
function highSTwin(signature: Hex): Hex {
  const r = signature.slice(2, 66);
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130, 132), 16);
  const twinS = (N - s).toString(16).padStart(64, "0");
  return `0x${r}${twinS}${(v === 27 ? 28 : 27).toString(16)}`;
}

const usdcBalance = (who: Address) =>
  publicClient.readContract({
    address: deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "balanceOf",
    args: [who],
  });

/** Chain time can run ahead of the wall clock after other tests' evm_increaseTime. */
async function chainNow(): Promise<bigint> {
  const block = await publicClient.getBlock({ blockTag: "latest" });
  const wall = BigInt(Math.floor(Date.now() / 1000));
  return block.timestamp > wall ? block.timestamp : wall;
}

interface AuthOptions {
  to?: Address;
  value?: bigint;
  validAfter?: bigint;
  validBefore?: bigint;
  nonce?: Hex;
}

async function signAuthorization(account: LocalAccount, o: AuthOptions = {}) {
  const now = await chainNow();
  const authorization = {
    from: account.address,
    to: o.to ?? recipient,
    value: o.value ?? 1000n,
    validAfter: o.validAfter ?? now - 600n,
    validBefore: o.validBefore ?? now + 300n,
    nonce: o.nonce ?? (`0x${randomBytes(32).toString("hex")}` as Hex),
  };
  const signature = await account.signTypedData({
    domain: {
      name: deployments.usdc.name,
      version: deployments.usdc.version,
      chainId: 84532,
      verifyingContract: deployments.usdc.address,
    },
    types: {
      TransferWithAuthorization: [
        { name: "from", type: "address" },
        { name: "to", type: "address" },
        { name: "value", type: "uint256" },
        { name: "validAfter", type: "uint256" },
        { name: "validBefore", type: "uint256" },
        { name: "nonce", type: "bytes32" },
      ],
    },
    primaryType: "TransferWithAuthorization",
    message: authorization,
  });
  const asStrings = Object.fromEntries(Object.entries(authorization).map(([k, v]) => [k, String(v)]));
  return { authorization: asStrings as Record<keyof typeof authorization, string>, signature };
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64");

/** x402 v2 PAYMENT-SIGNATURE header for a signed authorization. */
function v2Header(p: { authorization: Record<string, string>; signature: Hex }, amount = "1000", path = SEARCH) {
  return {
    "payment-signature": b64({
      x402Version: 2,
      resource: { url: `${stack.apiUrl}${path}`, description: "paid", mimeType: "application/json" },
      accepted: {
        scheme: "exact",
        network: "eip155:84532",
        asset: deployments.usdc.address,
        amount,
        payTo: recipient,
        maxTimeoutSeconds: 300,
        extra: { name: deployments.usdc.name, version: deployments.usdc.version },
      },
      payload: p,
    }),
  };
}

/** x402 v1 X-PAYMENT header. */
const v1Header = (p: { authorization: Record<string, string>; signature: Hex }) => ({
  "x-payment": b64({ x402Version: 1, scheme: "exact", network: "base-sepolia", payload: p }),
});

async function fundedPayer(usdc = 1_000_000n) {
  const w = newWallet();
  await faucet(w.address, usdc);
  return w;
}

const paymentRow = async (scheme: string, payer: Address, nonce: string) =>
  (
    await db.query("select * from api.payment where scheme = $1 and payer = $2 and nonce = $3", [
      scheme,
      payer,
      nonce.toLowerCase().startsWith("0x") && scheme === "x402-exact" ? nonce.toLowerCase() : nonce,
    ])
  ).rows[0];

const codes = (results: { status: number; body: any }[]) =>
  results.map((r) => `${r.status} ${r.status === 200 ? "OK" : r.body?.error?.code}`).sort();

// ---------- spec scheme ----------

describe("payments: spec x-payment (EIP-712 Payment)", () => {
  it("402 PAYMENT_REQUIRED without a payment, with x402 requirements in the body and PAYMENT-REQUIRED header", async () => {
    const res = await api("POST", SEARCH, { body: BODY });
    assert.equal(res.status, 402);
    assert.equal(res.body.error.code, "PAYMENT_REQUIRED");
    assert.equal(res.body.x402Version, 1);
    const [v1] = res.body.accepts;
    assert.equal(v1.scheme, "exact");
    assert.equal(v1.network, "base-sepolia");
    assert.equal(v1.maxAmountRequired, "1000");
    assert.equal(v1.payTo, recipient);
    assert.equal(v1.asset, deployments.usdc.address);
    const header = JSON.parse(Buffer.from(res.headers.get("payment-required")!, "base64").toString());
    assert.equal(header.x402Version, 2);
    assert.deepEqual(header.accepts[0], {
      scheme: "exact",
      network: "eip155:84532",
      asset: deployments.usdc.address,
      amount: "1000",
      payTo: recipient,
      maxTimeoutSeconds: 300,
      extra: { name: "USDC", version: "2" },
    });
    assert.match(header.resource.url, /\/api\/intelligence\/search$/);
  });

  it("serves a valid payment once and records it COMPLETED", async () => {
    const payer = newWallet();
    const header = await specHeader(payer.account);
    const res = await api("POST", SEARCH, { body: BODY, headers: { "x-payment": header } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(Array.isArray(res.body.results));
    const { nonce, amount } = JSON.parse(header);
    const row = await paymentRow("agenthub", payer.address, nonce);
    assert.equal(row.status, "COMPLETED");
    assert.equal(row.amount, amount);
    assert.equal(row.recipient, recipient);
    assert.equal(row.endpoint, SEARCH);
    const again = await api("POST", SEARCH, { body: BODY, headers: { "x-payment": header } });
    assert.equal(again.status, 400);
    assert.equal(again.body.error.code, "NONCE_REUSED");
  });

  it("answers every error code in the spec's check order", async () => {
    const payer = newWallet();
    const stranger = newWallet();
    const send = async (header: string) => {
      const res = await api("POST", SEARCH, { body: BODY, headers: { "x-payment": header } });
      return `${res.status} ${res.body.error?.code ?? "OK"}`;
    };
    assert.equal(await send("{not json"), "401 INVALID_PAYMENT");
    assert.equal(await send(JSON.stringify({ payer: payer.address })), "401 INVALID_PAYMENT");
    // Signed by someone else than `payer`.
    const forged = await signPaymentObject(stranger.account, { recipient, endpoint: SEARCH });
    assert.equal(await send(JSON.stringify({ ...forged, payer: payer.address })), "401 INVALID_PAYMENT");
    // Any field changed after signing breaks the signature.
    assert.equal(await send(await specHeader(payer.account, { amount: "9000000000000000" })), "401 INVALID_PAYMENT");
    const sign = (o: Partial<Parameters<typeof signPaymentObject>[1]>) =>
      signPaymentObject(payer.account, { recipient, endpoint: SEARCH, ...o }).then((p) => JSON.stringify(p));
    assert.equal(await send(await sign({ recipient: stranger.address })), "401 INVALID_PAYMENT");
    assert.equal(await send(await sign({ amount: 999_999_999_999_999n })), "402 INSUFFICIENT_AMOUNT");
    assert.equal(await send(await sign({ endpoint: "/api/attestations/create" })), "400 INVALID_ENDPOINT");
    // Order: recipient before amount before endpoint.
    assert.equal(
      await send(await sign({ recipient: stranger.address, amount: 1n, endpoint: "/x" })),
      "401 INVALID_PAYMENT",
    );
    assert.equal(await send(await sign({ amount: 1n, endpoint: "/x" })), "402 INSUFFICIENT_AMOUNT");
    // Paying more than the price is accepted.
    assert.equal(await send(await sign({ amount: 10n ** 16n })), "200 OK");
    const used = await sign({ nonce: "fixed-nonce" });
    assert.equal(await send(used), "200 OK");
    assert.equal(await send(await sign({ nonce: "fixed-nonce" })), "400 NONCE_REUSED");
    // The same nonce is free for another payer.
    const other = await signPaymentObject(stranger.account, { recipient, endpoint: SEARCH, nonce: "fixed-nonce" });
    assert.equal(await send(JSON.stringify(other)), "200 OK");
  });

  it("a high-s twin of a used signature is NONCE_REUSED, not a new payment", async () => {
    const payer = newWallet();
    const p = await signPaymentObject(payer.account, { recipient, endpoint: SEARCH });
    const twin = highSTwin(p.signature);
    assert.notEqual(twin, p.signature);
    const first = await api("POST", SEARCH, { body: BODY, headers: { "x-payment": JSON.stringify(p) } });
    assert.equal(first.status, 200);
    const second = await api("POST", SEARCH, {
      body: BODY,
      headers: { "x-payment": JSON.stringify({ ...p, signature: twin }) },
    });
    assert.equal(second.status, 400);
    assert.equal(second.body.error.code, "NONCE_REUSED");
  });

  it("a request that fails (invalid body) does not consume the payment", async () => {
    const payer = newWallet();
    const header = await specHeader(payer.account);
    const bad = await api("POST", SEARCH, { body: { limit: 1000 }, headers: { "x-payment": header } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "VALIDATION_ERROR");
    const ok = await api("POST", SEARCH, { body: BODY, headers: { "x-payment": header } });
    assert.equal(ok.status, 200);
  });

  it("the same payment 20 times in parallel is served once", async () => {
    const payer = newWallet();
    const header = await specHeader(payer.account);
    const results = await Promise.all(Array.from({ length: 20 }, () => post(stack.apiUrl, { "x-payment": header })));
    assert.deepEqual(codes(results), ["200 OK", ...Array(19).fill("400 NONCE_REUSED")]);
  });

  it("the same payment spread over two API processes sharing one database is served once", async () => {
    const second = await spawnApi();
    for (let round = 0; round < 3; round++) {
      const payer = newWallet();
      const header = await specHeader(payer.account);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => post(i % 2 ? second : stack.apiUrl, { "x-payment": header })),
      );
      assert.deepEqual(codes(results), ["200 OK", ...Array(19).fill("400 NONCE_REUSED")]);
      const { rows } = await db.query("select count(*)::int n from api.payment where payer = $1", [payer.address]);
      assert.equal(rows[0].n, 1);
    }
  });
});

// ---------- standard x402 ----------

describe("payments: standard x402 (exact, EIP-3009 USDC)", () => {
  it("the official @x402/fetch client pays the search on the local chain", async () => {
    const payer = await fundedPayer();
    const before = { payer: await usdcBalance(payer.address), platform: await usdcBalance(recipient) };
    const sent: Headers[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const req = new Request(input as RequestInfo, init);
      sent.push(new Headers(req.headers));
      return fetch(req);
    };
    const paidFetch = wrapFetchWithPaymentFromConfig(recordingFetch, {
      schemes: [{ network: "eip155:84532", client: new ExactEvmScheme(payer.account) }],
      // The local TestUSDC is not the client's default asset for eip155:84532 (Circle's USDC is): allow it,
      // capped at the search price.
      spendControls: {
        allowedAssets: [{ network: "eip155:84532", asset: deployments.usdc.address, maxAmountPerPayment: "1000" }],
      },
    });
    // The client dates its authorization by the wall clock; keep it in step with the chain's clock.
    const offset = Number((await chainNow()) * 1000n) - Date.now();
    const realNow = Date.now;
    if (offset > 30_000) Date.now = () => realNow() + offset;
    let res: Response;
    try {
      res = await paidFetch(`${stack.apiUrl}${SEARCH}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(BODY),
      });
    } finally {
      Date.now = realNow;
    }
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.ok(Array.isArray(body.results));
    assert.equal(sent.length, 2);
    assert.ok(sent[1]!.get("payment-signature"), "paid retry carries PAYMENT-SIGNATURE");
    const settle = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    assert.equal(settle.success, true);
    assert.equal(settle.network, "eip155:84532");
    assert.match(settle.transaction, /^0x[0-9a-f]{64}$/);
    const receipt = await publicClient.getTransactionReceipt({ hash: settle.transaction as Hex });
    assert.equal(receipt.status, "success");
    assert.equal(await usdcBalance(payer.address), before.payer - 1000n);
    assert.equal(await usdcBalance(recipient), before.platform + 1000n);
    const payload = JSON.parse(Buffer.from(sent[1]!.get("payment-signature")!, "base64").toString());
    const row = await paymentRow("x402-exact", payer.address, payload.payload.authorization.nonce);
    assert.equal(row.status, "COMPLETED");
    assert.equal(row.tx_hash, settle.transaction);
    assert.equal(row.delivered, true);
    // Replaying the header: the nonce is spent.
    const replay = await post(stack.apiUrl, { "payment-signature": sent[1]!.get("payment-signature")! });
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error.code, "NONCE_REUSED");
  });

  it("accepts x402 v1 X-PAYMENT and answers X-PAYMENT-RESPONSE", async () => {
    const payer = await fundedPayer();
    const before = await usdcBalance(payer.address);
    const res = await post(stack.apiUrl, v1Header(await signAuthorization(payer.account)));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const settle = decodePaymentResponseHeader(res.headers.get("x-payment-response")!);
    assert.equal(settle.success, true);
    assert.equal(settle.network, "base-sepolia");
    assert.equal(await usdcBalance(payer.address), before - 1000n);
  });

  it("refuses bad x402 payments with the spec's codes and settles nothing", async () => {
    const payer = await fundedPayer();
    const poor = newWallet();
    const stranger = newWallet();
    const before = await usdcBalance(payer.address);
    const now = await chainNow();
    const send = async (headers: Record<string, string>) => {
      const res = await post(stack.apiUrl, headers);
      assert.ok(res.headers.get("payment-required"), "payment errors carry PAYMENT-REQUIRED");
      return `${res.status} ${res.body.error?.code ?? "OK"}`;
    };
    assert.equal(await send({ "payment-signature": "%%%not-base64" }), "401 INVALID_PAYMENT");
    assert.equal(await send({ "x-payment": b64({ x402Version: 1, scheme: "exact" }) }), "401 INVALID_PAYMENT");
    const good = await signAuthorization(payer.account);
    assert.equal(
      await send(v2Header({ ...good, authorization: { ...good.authorization, value: "2000" } })),
      "401 INVALID_PAYMENT",
    ); // tampered after signing
    const byStranger = await signAuthorization(stranger.account);
    assert.equal(
      await send(v2Header({ ...byStranger, authorization: { ...byStranger.authorization, from: payer.address } })),
      "401 INVALID_PAYMENT",
    );
    assert.equal(
      await send(v2Header(await signAuthorization(payer.account, { to: stranger.address }))),
      "401 INVALID_PAYMENT",
    );
    assert.equal(
      await send(v2Header(await signAuthorization(payer.account, { value: 999n }))),
      "402 INSUFFICIENT_AMOUNT",
    );
    assert.equal(await send(v2Header(await signAuthorization(payer.account, { value: 1001n }))), "401 INVALID_PAYMENT");
    assert.equal(
      await send(v2Header(await signAuthorization(payer.account, { validBefore: now - 1n }))),
      "401 INVALID_PAYMENT",
    );
    assert.equal(
      await send(v2Header(await signAuthorization(payer.account, { validAfter: now + 3600n }))),
      "401 INVALID_PAYMENT",
    );
    const broke = await post(stack.apiUrl, v2Header(await signAuthorization(poor.account)));
    assert.equal(broke.status, 401);
    assert.equal(broke.body.error.code, "INVALID_PAYMENT");
    assert.match(broke.body.error.message, /less than/);
    // A payment naming another resource.
    const other = JSON.parse(
      Buffer.from(v2Header(await signAuthorization(payer.account))["payment-signature"], "base64").toString(),
    );
    other.resource.url = `${stack.apiUrl}/api/attestations/create`;
    assert.equal(await send({ "payment-signature": b64(other) }), "400 INVALID_ENDPOINT");
    assert.equal(await usdcBalance(payer.address), before);
  });

  it("a smart-account (non-65-byte) signature: cheap checks first, then at most 5 on-chain verifications per payer and minute", async () => {
    const payer = newWallet();
    const stranger = newWallet();
    // 66 bytes: not ECDSA, so only the chain (ERC-1271 / ERC-6492) could verify it.
    const unverifiable = async (o: AuthOptions = {}) => ({
      ...(await signAuthorization(payer.account, o)),
      signature: `0x${"ab".repeat(66)}` as Hex,
    });
    const send = async (headers: Record<string, string>) => {
      const res = await post(stack.apiUrl, headers);
      return { status: res.status, code: res.body.error?.code as string, message: res.body.error?.message as string };
    };
    // Refused by the recipient and amount rules, before any signature check: no on-chain call, nothing counted.
    for (let i = 0; i < 6; i++) {
      const wrongTo = await send(v2Header(await unverifiable({ to: stranger.address })));
      assert.equal(wrongTo.status, 401);
      assert.match(wrongTo.message, /authorization\.to must be/);
    }
    assert.equal((await send(v2Header(await unverifiable({ value: 999n })))).code, "INSUFFICIENT_AMOUNT");
    // Well-formed for this route: verified on chain (and refused), five times per minute for this payer...
    for (let i = 0; i < 5; i++) {
      const answer = await send(v2Header(await unverifiable()));
      assert.equal(answer.status, 401, JSON.stringify(answer));
      assert.match(answer.message, /does not recover/);
    }
    // ...then 429 before any chain call; another payer is not affected.
    const limited = await send(v2Header(await unverifiable()));
    assert.equal(limited.status, 429, JSON.stringify(limited));
    assert.equal(limited.code, "RATE_LIMITED");
    const other = newWallet();
    const otherAnswer = await send(
      v2Header({ ...(await signAuthorization(other.account)), signature: `0x${"ab".repeat(66)}` as Hex }),
    );
    assert.equal(otherAnswer.status, 401);
  });

  it("a failed request (invalid body) settles nothing and leaves the authorization usable", async () => {
    const payer = await fundedPayer();
    const before = await usdcBalance(payer.address);
    const headers = v2Header(await signAuthorization(payer.account));
    const bad = await post(stack.apiUrl, headers, { limit: "many" });
    assert.equal(bad.status, 400);
    assert.equal(await usdcBalance(payer.address), before);
    const ok = await post(stack.apiUrl, headers);
    assert.equal(ok.status, 200);
    assert.equal(await usdcBalance(payer.address), before - 1000n);
  });

  it("the same x402 payment 20 times in parallel over two API processes is served and settled once", async () => {
    const second = await spawnApi();
    const payer = await fundedPayer();
    const before = await usdcBalance(payer.address);
    const headers = v2Header(await signAuthorization(payer.account));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(i % 2 ? second : stack.apiUrl, headers)),
    );
    assert.deepEqual(codes(results), ["200 OK", ...Array(19).fill("400 NONCE_REUSED")]);
    assert.equal(await usdcBalance(payer.address), before - 1000n);
  });

  it("a high-s twin is the same payment: settled once in canonical form, then NONCE_REUSED", async () => {
    const payer = await fundedPayer();
    const before = await usdcBalance(payer.address);
    const signed = await signAuthorization(payer.account);
    const twin = { ...signed, signature: highSTwin(signed.signature) };
    // Only the high-s form is ever sent: the gate submits the canonical twin (USDC rejects high-s).
    const first = await post(stack.apiUrl, v2Header(twin));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const again = await post(stack.apiUrl, v2Header(signed));
    assert.equal(again.status, 400);
    assert.equal(again.body.error.code, "NONCE_REUSED");
    assert.equal(await usdcBalance(payer.address), before - 1000n);
  });

  it("a settlement that times out is reconciled when it mines, and never charged twice", async () => {
    const relayer = await spawnRelayer(1500);
    const apiUrl = await spawnApi({ RELAYER_URL: relayer, PAYMENT_RECONCILE_INTERVAL_MS: "300" });
    const payer = await fundedPayer();
    const before = await usdcBalance(payer.address);
    const retried = await signAuthorization(payer.account);
    const unattended = await signAuthorization(payer.account);
    await rpc("evm_setAutomine", [false]);
    let pendingA: Awaited<ReturnType<typeof post>>;
    let pendingB: Awaited<ReturnType<typeof post>>;
    try {
      [pendingA, pendingB] = await Promise.all([post(apiUrl, v2Header(retried)), post(apiUrl, v2Header(unattended))]);
    } finally {
      await rpc("evm_setAutomine", [true]);
    }
    for (const pending of [pendingA, pendingB]) {
      assert.equal(pending.status, 504, JSON.stringify(pending.body));
      assert.equal(pending.body.error.code, "PAYMENT_PENDING");
    }
    const rowA = await paymentRow("x402-exact", payer.address, retried.authorization.nonce);
    assert.equal(rowA.status, "SETTLING");
    assert.match(rowA.tx_hash, /^0x/);
    await rpc("evm_mine");

    // The client presents the same payment again: served now, with the transaction that was already sent.
    const served = await post(apiUrl, v2Header(retried));
    assert.equal(served.status, 200, JSON.stringify(served.body));
    assert.equal(decodePaymentResponseHeader(served.headers.get("payment-response")!).transaction, rowA.tx_hash);

    // Nobody presents the other one: the reconciler finds it mined and records the settlement.
    const rowB = await waitUntil("reconciled settlement", async () => {
      const row = await paymentRow("x402-exact", payer.address, unattended.authorization.nonce);
      return row?.status === "COMPLETED" ? row : undefined;
    });
    assert.match(rowB.tx_hash, /^0x/);
    assert.equal(rowB.delivered, false);
    // Presented later, it is served without a second transfer; after that it is spent.
    const late = await post(stack.apiUrl, v2Header(unattended));
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.equal(decodePaymentResponseHeader(late.headers.get("payment-response")!).transaction, rowB.tx_hash);
    const spent = await post(stack.apiUrl, v2Header(unattended));
    assert.equal(spent.body.error.code, "NONCE_REUSED");
    assert.equal(await usdcBalance(payer.address), before - 2000n);
  });

  it("an attestation whose x402 settlement fails is undone; a retried payment answers the same attestation", async () => {
    const relayer = await spawnRelayer(1500);
    const apiUrl = await spawnApi({ RELAYER_URL: relayer, PAYMENT_RECONCILE_INTERVAL_MS: "300" });
    const ATTEST = "/api/attestations/create";
    const [attestorReg, subject, other] = [await registerAgent(), await registerAgent(), await registerAgent()];
    const { owner } = await claimAgent(attestorReg.agentId, attestorReg.claimCode);
    await faucet(owner.address, 20_000n, 10n ** 16n);
    const attest = async (subjectId: number, auth: Awaited<ReturnType<typeof signAuthorization>>) => {
      const res = await fetch(`${apiUrl}${ATTEST}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...v2Header(auth, "5000", ATTEST) },
        body: JSON.stringify({ attestorId: attestorReg.agentId, subjectId, category: "quality", rating: 5 }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const platformBefore = await usdcBalance(recipient);
    const attestationsOf = async (subjectId: number) =>
      (await db.query("select id from api.attestation where subject_id = $1", [subjectId])).rowCount;

    // Settlement sent but not mined: 504, the attestation is written. Before the block, the payer empties its
    // wallet with a better-paying transfer, so the settlement reverts when the block comes.
    const doomed = await signAuthorization(owner.account, { value: 5000n });
    await rpc("evm_setAutomine", [false]);
    let pending: Awaited<ReturnType<typeof attest>>;
    try {
      pending = await attest(subject.agentId, doomed);
      assert.equal(pending.status, 504, JSON.stringify(pending.body));
      assert.equal(pending.body.error.code, "PAYMENT_PENDING");
      assert.equal(await attestationsOf(subject.agentId), 1);
      const { wallet, account } = walletFromKey(owner.key);
      await wallet.writeContract({
        address: deployments.usdc.address,
        abi: TestUSDCAbi,
        functionName: "transfer",
        args: [newWallet().address, 20_000n],
        account,
        chain: publicClient.chain,
        gas: 100_000n, // no estimate: against the pending block (settlement first) it would fail
        maxPriorityFeePerGas: 50_000_000_000n,
        maxFeePerGas: 100_000_000_000n,
      });
      await rpc("evm_mine");
    } finally {
      await rpc("evm_setAutomine", [true]);
    }
    assert.equal(await usdcOf(owner.address), 0n);
    // The reconciler finds the settlement reverted: the payment is FAILED and the attestation is gone.
    await waitUntil("unpaid attestation undone", async () => (await attestationsOf(subject.agentId)) === 0);
    const row = await paymentRow("x402-exact", owner.address, doomed.authorization.nonce);
    assert.equal(row.status, "FAILED");

    // A settlement that only timed out is served on retry with the attestation it already bought, not a 409.
    await faucet(owner.address, 5_000n);
    const paid = await signAuthorization(owner.account, { value: 5000n });
    await rpc("evm_setAutomine", [false]);
    try {
      const first = await attest(other.agentId, paid);
      assert.equal(first.status, 504, JSON.stringify(first.body));
      await rpc("evm_mine");
    } finally {
      await rpc("evm_setAutomine", [true]);
    }
    const retried = await attest(other.agentId, paid);
    assert.equal(retried.status, 201, JSON.stringify(retried.body));
    assert.equal(await attestationsOf(other.agentId), 1);
    assert.equal(await usdcOf(owner.address), 0n, "paid exactly once");
    assert.equal(await usdcBalance(recipient), platformBefore + 5000n, "the platform got the settled payment only");
  });
});
