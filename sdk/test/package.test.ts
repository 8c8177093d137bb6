// The package as published: `pnpm pack` (builds ESM + declarations), the tarball's manifest and files, the built
// code running on plain Node (no TypeScript loader) on Node 22 and on the oldest supported Node (engines: >=20), and
// the browser entry bundling for the browser platform (no Node-only imports; test/e2e/sdk-browser.test.ts runs it in
// Chromium against the stack).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { minNodeMajor, nodeOfMajor } from "../../scripts/lib/oldest-node.ts";
import { browserBundle } from "./browser-bundle.ts";

const pkgDir = new URL("..", import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), "agenthub-sdk-pack-"));
let unpacked: string;

before(() => {
  execFileSync("pnpm", ["pack", "--pack-destination", tmp], { cwd: pkgDir, stdio: "pipe" });
  const tarball = readdirSync(tmp).find((f) => f.endsWith(".tgz"))!;
  execFileSync("tar", ["-xzf", join(tmp, tarball), "-C", tmp]);
  unpacked = join(tmp, "package");
});
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The package's `engines.node` floor (">=20" -> 20): its built code must run there. */
const MIN_NODE = minNodeMajor(join(pkgDir, "package.json"));

/** The built code on plain Node `node` (no TypeScript loader): signs and verifies a spec payment, maps a failed request. */
function smokeTest(node: string): unknown {
  const script = `
    const sdk = await import(${JSON.stringify(join(pkgDir, "dist", "index.js"))});
    const { privateKeyToAccount } = await import("viem/accounts");
    const { verifyTypedData } = await import("viem");
    const account = privateKeyToAccount("0x${"11".repeat(32)}");
    const p = await sdk.signPaymentObject(account, { recipient: account.address, endpoint: "/api/intelligence/search", amount: 10n ** 15n });
    const ok = await verifyTypedData({ address: account.address, domain: sdk.specDomain(), types: sdk.SPEC_PAYMENT_TYPES,
      primaryType: "Payment", message: { ...p, amount: BigInt(p.amount) }, signature: p.signature });
    const hub = new sdk.AgentHub({ apiUrl: "http://127.0.0.1:1" });
    const err = await hub.config().catch((e) => e);
    console.log(JSON.stringify({ ok, code: err.code, isError: sdk.isAgentHubError(err) }));`;
  return JSON.parse(execFileSync(node, ["--input-type=module", "-e", script], { cwd: pkgDir, encoding: "utf8" }));
}

describe("@agenthub/sdk package", () => {
  it("publishes dist (ESM, declarations, the OpenAPI document) with exports pointing at it, and no sources", () => {
    const manifest = JSON.parse(readFileSync(join(unpacked, "package.json"), "utf8"));
    assert.equal(manifest.name, "@agenthub/sdk");
    assert.equal(manifest.type, "module");
    assert.deepEqual(manifest.exports["."], { types: "./dist/index.d.ts", default: "./dist/index.js" });
    assert.equal(manifest.exports["./webhooks"].default, "./dist/webhooks.js");
    assert.deepEqual(manifest.exports["./read"], { types: "./dist/read.d.ts", default: "./dist/read.js" });
    assert.ok(manifest.peerDependencies.viem);
    const files = execFileSync("find", [".", "-type", "f"], { cwd: unpacked, encoding: "utf8" }).split("\n");
    for (const f of [
      "./dist/index.js",
      "./dist/index.d.ts",
      "./dist/generated/openapi.d.ts",
      "./dist/generated/openapi.json",
    ]) {
      assert.ok(files.includes(f), `${f} is packed`);
    }
    assert.ok(!files.some((f) => f.startsWith("./src/")), "no TypeScript sources");
    // Declarations import .js files (what consumers resolve), never the .ts sources.
    assert.doesNotMatch(readFileSync(join(unpacked, "dist", "index.d.ts"), "utf8"), /from "\.\/[^"]+\.ts"/);
    // The protocol (private @agenthub/common/protocol in the workspace) is compiled in, not a dependency.
    assert.equal({ ...manifest.dependencies, ...manifest.peerDependencies }["@agenthub/common"], undefined);
    const built = files.filter((f) => f.startsWith("./dist/") && /\.(js|d\.ts)$/.test(f));
    assert.ok(built.includes("./dist/protocol/payment.js"), "the protocol is built into dist");
    const leaking = built.filter((f) => readFileSync(join(unpacked, f), "utf8").includes("@agenthub/common"));
    assert.deepEqual(leaking, []);
  });

  it("runs on plain Node: signs and verifies a spec payment with the built code", () => {
    assert.deepEqual(smokeTest(process.execPath), { ok: true, code: "NETWORK_ERROR", isError: true });
  });

  it(`runs on the oldest supported Node (${MIN_NODE}.x, the machine's system Node) too`, () => {
    const node = nodeOfMajor(MIN_NODE);
    assert.equal(execFileSync(node, ["--version"], { encoding: "utf8" }).trim().split(".")[0], `v${MIN_NODE}`);
    assert.deepEqual(smokeTest(node), { ok: true, code: "NETWORK_ERROR", isError: true });
  });

  it("bundles for browsers without Node built-ins", async () => {
    const bundle = await browserBundle({ entry: join(pkgDir, "dist", "index.js") });
    assert.ok(bundle.inputs.some((i) => i.includes("openapi-fetch")));
    assert.deepEqual(bundle.nodeBuiltins, []);
  });

  it("the read-only entry (@agenthub/sdk/read) bundles without viem, x402 or signing code, and reads", async () => {
    const bundle = await browserBundle({ entry: join(pkgDir, "dist", "read.js") });
    const heavy = bundle.inputs.filter((i) => /node_modules\/(viem|ox|@noble|@scure|@x402|permissionless)\//.test(i));
    assert.deepEqual(heavy, []);
    assert.ok(bundle.inputs.some((i) => i.includes("openapi-fetch")));
    assert.ok(!bundle.inputs.some((i) => /\/(signer|core|protocol\/)/.test(i)), bundle.inputs.join("\n"));
    const script = `
      const { AgentHubReader, isAgentHubError } = await import(${JSON.stringify(join(pkgDir, "dist", "read.js"))});
      const err = await new AgentHubReader({ apiUrl: "http://127.0.0.1:1" }).agents.get(1).catch((e) => e);
      console.log(JSON.stringify({ code: err.code, isError: isAgentHubError(err) }));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: pkgDir,
      encoding: "utf8",
    });
    assert.deepEqual(JSON.parse(out), { code: "NETWORK_ERROR", isError: true });
  });
});
