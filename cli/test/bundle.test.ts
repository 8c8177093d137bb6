// The CLI as published (one esbuild bundle, target node20) runs on the oldest supported Node (engines: >=20), not
// only on the Node 22 of the workspace: a keystore made and read back, usage errors with their exit code.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { minNodeMajor, nodeOfMajor } from "../../scripts/lib/oldest-node.ts";
import { bundleCli } from "../bundle.mjs";

const pkgDir = new URL("..", import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), "agenthub-cli-node-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe("agenthub bundle", () => {
  const major = minNodeMajor(join(pkgDir, "package.json"));

  it(`runs on Node ${major}.x: keys new and address, exit code 2 on bad usage`, async () => {
    const node = nodeOfMajor(major);
    const bundle = await bundleCli(join(tmp, "agenthub.mjs"));
    const run = (args: string[]) =>
      spawnSync(node, [bundle, "--json", ...args], {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "", AGENTHUB_KEYSTORE_PASSWORD: "node min" },
      });
    assert.match(spawnSync(node, ["--version"], { encoding: "utf8" }).stdout, new RegExp(`^v${major}\\.`));
    const keystore = join(tmp, "key.json");
    const made = run(["keys", "new", keystore, "--light"]);
    assert.equal(made.status, 0, made.stderr);
    const { address } = JSON.parse(made.stdout);
    assert.match(address, /^0x[0-9a-fA-F]{40}$/);
    const read = run(["keys", "address", "--keystore", keystore]);
    assert.equal(read.status, 0, read.stderr);
    assert.equal(JSON.parse(read.stdout).address, address);
    const bad = run(["runs", "show", "not-a-number"]);
    assert.equal(bad.status, 2, bad.stderr);
  });
});
