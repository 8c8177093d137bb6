// The SDK and the CLI as a user outside this repository gets them: `pnpm pack` both (each package's prepack builds
// it), install the tarballs with npm into an empty folder outside the checkout, with only the machine's Node.js
// and npm on PATH (Node 20, the packages' engines floor), then run the README's quick start verbatim there (`npx
// agenthub` now resolves to the installed package) and a program that imports the installed SDK. npm fetches the
// SDK's own dependencies from the registry, as it does for a user.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { minNodeMajor } from "../../scripts/lib/oldest-node.ts";
import { newcomerEnv, runShell, walkthroughBlocks, walkthroughScript } from "../support/walkthrough.ts";

const root = new URL("../..", import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), "agenthub-packages-"));
const app = join(tmp, "app");
after(() => rmSync(tmp, { recursive: true, force: true }));

function pack(pkg: string): string {
  const before = new Set(readdirSync(tmp));
  execFileSync("pnpm", ["pack", "--pack-destination", tmp], { cwd: join(root, pkg), stdio: "pipe" });
  const tarball = readdirSync(tmp).find((f) => f.endsWith(".tgz") && !before.has(f));
  assert.ok(tarball, `pnpm pack wrote no tarball for ${pkg}`);
  return join(tmp, tarball);
}

/** Runs a command as the newcomer (system Node and npm only) in the app folder; throws with its output on failure. */
async function inApp(script: string): Promise<string> {
  const { code, output } = await runShell(script, app, newcomerEnv());
  assert.equal(code, 0, `${script} failed:\n${output.slice(-6000)}`);
  return output;
}

before(async () => {
  const tarballs = [pack("sdk"), pack("cli")];
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "try-agenthub", private: true, type: "module" }));
  const viem = JSON.parse(readFileSync(join(root, "sdk", "package.json"), "utf8")).devDependencies.viem;
  await inApp(`npm install --no-audit --no-fund ${tarballs.join(" ")} viem@${viem}`);
});

describe("the packed SDK and CLI, installed in an empty folder", () => {
  it("run on the system Node, the packages' engines floor", async () => {
    const floor = minNodeMajor(join(root, "cli", "package.json"));
    assert.equal(floor, minNodeMajor(join(root, "sdk", "package.json")));
    assert.match(await inApp("node --version"), new RegExp(`^v${floor}\\.`));
    const installed = JSON.parse(readFileSync(join(app, "node_modules", "@agenthub", "cli", "package.json"), "utf8"));
    // The CLI is one bundle: installing it pulls in nothing else (no private workspace package to resolve).
    assert.equal(installed.dependencies, undefined);
    assert.match(await inApp("npx agenthub --help"), /Usage: agenthub/);
  });

  it("the README quick start runs verbatim with the installed CLI", async () => {
    const blocks = walkthroughBlocks(readFileSync(join(root, "README.md"), "utf8"));
    await inApp(walkthroughScript(blocks));
    assert.ok(readFileSync(join(app, "ada.json"), "utf8").includes('"agentId"'));
  });

  it("a program imports the installed SDK and reads the agent the quick start made", async () => {
    const { agentId } = JSON.parse(readFileSync(join(app, "ada.json"), "utf8"));
    writeFileSync(
      join(app, "read.mjs"),
      `import { AgentHub } from "@agenthub/sdk";
const hub = new AgentHub({ apiUrl: process.env.AGENTHUB_API });
const agent = await hub.agents.get(Number(process.argv[2]));
const config = await hub.config();
console.log(JSON.stringify({ name: agent.name, status: agent.status, staked: agent.stakedAmount, chainId: config.chainId }));
`,
    );
    const line = (await inApp(`node read.mjs ${agentId}`)).trim().split("\n").at(-1)!;
    const read = JSON.parse(line);
    assert.deepEqual(read, { name: "Ada", status: "PROVISIONAL", staked: "20000000", chainId: 84532 });
  });
});
