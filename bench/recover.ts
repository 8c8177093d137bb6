// Signature recovery throughput for the spec Payment (EIP-712): viem vs @noble/curves directly vs libsecp256k1
// (native, `secp256k1` npm) inline, and a worker-thread pool. Run: tsx bench/recover.ts [count]
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { PAID_PATHS } from "@agenthub/api/domain/prices";
import { parseSignature, recoverAddress } from "@agenthub/api/payments/eip712";
import { nativeRecoverer, WorkerRecoverer } from "@agenthub/api/payments/recover";
import { specDomain, specPaymentStruct } from "@agenthub/api/payments/spec-scheme";
import { SPEC_PAYMENT_TYPES } from "@agenthub/sdk/protocol";
import { recoverTypedDataAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const count = Number(process.argv[2] ?? 4000);
const account = privateKeyToAccount(generatePrivateKey());
const recipient = privateKeyToAccount(generatePrivateKey()).address;
const domain = specDomain(84532);
const items = await Promise.all(
  Array.from({ length: 200 }, async (_, i) => {
    const message = {
      payer: account.address,
      recipient,
      amount: 1_000_000_000_000_000n,
      endpoint: PAID_PATHS[0] as string,
      nonce: `bench-${i}`,
    };
    const signature = await account.signTypedData({
      domain,
      types: SPEC_PAYMENT_TYPES,
      primaryType: "Payment",
      message,
    });
    return { message, signature };
  }),
);
const struct = specPaymentStruct(84532);

const lines: string[] = [];

async function measure(name: string, fn: (i: number) => Promise<unknown> | unknown, concurrent = false) {
  for (let i = 0; i < 200; i++) await fn(i); // warm-up
  const started = performance.now();
  if (concurrent) {
    await Promise.all(Array.from({ length: count }, (_, i) => fn(i)));
  } else {
    for (let i = 0; i < count; i++) await fn(i);
  }
  const ms = performance.now() - started;
  const perSec = Math.round((count / ms) * 1000);
  const line = `| ${name} | ${perSec.toLocaleString("en-US")} | ${((ms * 1000) / count).toFixed(0)} µs |`;
  lines.push(line);
  console.log(line);
  return perSec;
}

const check = (addr: string) => {
  if (addr !== account.address) throw new Error(`recovered ${addr}`);
};

console.log(`cpus: ${cpus().length} x ${cpus()[0]?.model}; node ${process.version}; ${count} recoveries each\n`);
console.log("| method | recoveries/s | per recovery |\n|---|---:|---:|");
await measure("viem recoverTypedDataAddress (hash + recover)", async (i) => {
  const it = items[i % items.length]!;
  check(await recoverTypedDataAddress({ domain, types: SPEC_PAYMENT_TYPES, primaryType: "Payment", ...it }));
});
await measure("EIP-712 digest only (precomputed domain, bytes)", (i) =>
  struct.digest(items[i % items.length]!.message),
);
await measure("digest + @noble/curves recover, inline", (i) => {
  const it = items[i % items.length]!;
  check(recoverAddress(struct.digest(it.message), parseSignature(it.signature)));
});
const native = nativeRecoverer();
if (native) {
  await measure("digest + libsecp256k1 (native) recover, inline", async (i) => {
    const it = items[i % items.length]!;
    check(await native.recover(struct.digest(it.message), parseSignature(it.signature)));
  });
}
for (const threads of [1, 2]) {
  const pool = new WorkerRecoverer(threads, "noble");
  await measure(
    `digest inline + @noble/curves recover in ${threads} worker thread(s), all in flight`,
    async (i) => {
      const it = items[i % items.length]!;
      check(await pool.recover(struct.digest(it.message), parseSignature(it.signature)));
    },
    true,
  );
  await pool.close();
}

writeFileSync(
  new URL("./results/recover.md", import.meta.url),
  `# Signature recovery benchmark

Spec \`Payment\` (EIP-712) signatures, ${count} recoveries per method after 200 warm-up ones, run ${new Date().toISOString()}
with \`pnpm exec tsx bench/recover.ts ${count}\` on ${cpus().length} CPU(s) (${cpus()[0]?.model}), Node ${process.version};
load average at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} (the machine is shared: absolute numbers are low, ratios are what matters).

| method | recoveries/s | per recovery |
|---|---:|---:|
${lines.join("\n")}

The gate uses libsecp256k1 inline (\`api/src/payments/recover.ts\`), falling back to @noble/curves when the native
binding does not load.
`,
);
