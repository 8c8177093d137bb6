// Runs the contract test suite with Hardhat 3's gas statistics and writes contracts/gas-report.md.
//
//   pnpm gas                      # all mocha contract tests
//   pnpm gas test/contracts/x.ts  # only some test files (the report says which)
//   pnpm gas --allow-failures     # still write the report when a test fails
//
// Hardhat collects the statistics itself (`hardhat test mocha --gas-stats --gas-stats-json <file>`): every
// transaction and eth_call against a contract deployed during the tests, per function (min/avg/median/max/calls)
// plus deployment cost and runtime bytecode size. The printed table is echoed to the terminal; the markdown is
// built from the JSON twin of that table. Works with whatever contracts exist: nothing here names a contract.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, relative } from "node:path";
import { solcSettings } from "../hardhat.config.ts";

interface Stats {
  min: number;
  max: number;
  avg: number;
  median: number;
  count: number;
  runtimeSize?: number;
}

interface ContractStats {
  sourceName: string;
  contractName: string;
  deployment: Stats | null;
  functions: Record<string, Stats> | null;
}

interface GasStatsJson {
  contracts: Record<string, ContractStats>;
}

interface AbiItem {
  type: string;
  name?: string;
  stateMutability?: string;
  inputs?: { type: string }[];
}

const root = new URL("..", import.meta.url).pathname;
const outFile = join(root, "contracts", "gas-report.md");
const baselineFile = join(root, "contracts", "gas-baseline.json");
const args = process.argv.slice(2);
const allowFailures = args.includes("--allow-failures");
const testFiles = args.filter((a) => !a.startsWith("--"));

/** Runs hardhat with Node 22 first on PATH (the repo's .tools), echoing and capturing its output. */
function runHardhat(hardhatArgs: string[]): Promise<{ code: number; output: string }> {
  const tools = join(root, ".tools", "node_modules", ".bin");
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: "0" };
  if (existsSync(tools)) env.PATH = `${tools}${delimiter}${env.PATH ?? ""}`;
  const bin = join(root, "node_modules", ".bin", "hardhat");
  return new Promise((resolve, reject) => {
    const child = spawn(bin, hardhatArgs, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => {
      output += d;
      process.stdout.write(d);
    });
    child.stderr.on("data", (d: Buffer) => {
      output += d;
      process.stderr.write(d);
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

/** Function name -> "write" | "view" from the contract's artifact (overloads keyed by signature too). */
function mutabilities(sourceName: string, contractName: string): Map<string, string> {
  const kinds = new Map<string, string>();
  const file = join(root, "artifacts", sourceName, `${contractName}.json`);
  if (!existsSync(file)) return kinds;
  const abi = (JSON.parse(readFileSync(file, "utf8")) as { abi: AbiItem[] }).abi;
  for (const item of abi) {
    if (item.type !== "function" || !item.name) continue;
    const kind = item.stateMutability === "view" || item.stateMutability === "pure" ? "view" : "write";
    kinds.set(item.name, kind);
    kinds.set(`${item.name}(${(item.inputs ?? []).map((i) => i.type).join(",")})`, kind);
  }
  return kinds;
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

function contractSection(c: ContractStats): string {
  const lines = [`### ${c.contractName}`, "", `\`${c.sourceName}\``, ""];
  if (c.deployment) {
    const d = c.deployment;
    const size = d.runtimeSize === undefined ? "" : `, runtime bytecode ${fmt(d.runtimeSize)} bytes`;
    const range = d.min === d.max ? fmt(d.min) : `${fmt(d.min)} - ${fmt(d.max)} (avg ${fmt(d.avg)})`;
    lines.push(`Deployment: ${range} gas over ${d.count} deployment(s)${size}.`, "");
  } else {
    lines.push("Deployment: not measured (not deployed directly by the tests).", "");
  }
  const fns = Object.entries(c.functions ?? {});
  if (fns.length === 0) {
    lines.push("No function calls measured.", "");
    return lines.join("\n");
  }
  const kinds = mutabilities(c.sourceName, c.contractName);
  // state-changing functions first, then views; alphabetical within each group
  fns.sort(([a], [b]) => {
    const ka = kinds.get(a) === "view" ? 1 : 0;
    const kb = kinds.get(b) === "view" ? 1 : 0;
    return ka - kb || a.localeCompare(b);
  });
  lines.push("| Function | Kind | Min | Avg | Median | Max | Calls |", "|---|---|---:|---:|---:|---:|---:|");
  for (const [name, s] of fns) {
    const kind = kinds.get(name) ?? "?";
    lines.push(
      `| \`${name}\` | ${kind} | ${fmt(s.min)} | ${fmt(s.avg)} | ${fmt(s.median)} | ${fmt(s.max)} | ${s.count} |`,
    );
  }
  lines.push("");
  return lines.join("\n");
}

function gitCommit(): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn("git", ["rev-parse", "--short", "HEAD"], { cwd: root });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d;
    });
    child.on("error", () => resolve("unknown"));
    child.on("close", () => resolve(out.trim() || "unknown"));
  });
}

function toolVersion(pkg: string): string {
  try {
    return (JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")) as { version: string })
      .version;
  } catch {
    return "unknown";
  }
}

interface Baseline {
  about: string;
  columns: { label: string; commit: string; note: string; gas: Record<string, number> }[];
}

/**
 * The steady-state core paths the core-gas test prints ("        <path>   <gas>" lines, lifecycle totals prefixed
 * "lifecycle: "), in the order printed.
 */
function corePaths(output: string): Map<string, number> {
  const paths = new Map<string, number>();
  let lifecycle = false;
  for (const line of output.split("\n")) {
    if (/gas used \(receipt\.gasUsed/.test(line)) lifecycle = false;
    if (/run lifecycle \(relayer sends every step/.test(line)) lifecycle = true;
    const m = /^ {8}(\S.*?)\s{2,}(\d+)(?:\s+\{.*\})?$/.exec(line);
    if (m) paths.set(lifecycle ? `lifecycle: ${m[1]}` : m[1]!, Number(m[2]));
  }
  return paths;
}

/** Before/after table of the core paths against contracts/gas-baseline.json (empty without either). */
function comparison(now: Map<string, number>): string[] {
  if (now.size === 0 || !existsSync(baselineFile)) return [];
  const base = JSON.parse(readFileSync(baselineFile, "utf8")) as Baseline;
  const cell = (v: number | undefined) => (v === undefined ? "-" : fmt(v));
  const change = (before: number | undefined, after: number) =>
    before === undefined ? "-" : `${after - before >= 0 ? "+" : ""}${fmt(after - before)}`;
  const lines = [
    "## Core paths: before and after",
    "",
    "Steady state (accounts and contracts already hold balances; TestUSDC), from `test/contracts/core-gas.test.ts`.",
    `Earlier columns come from \`contracts/gas-baseline.json\`: ${base.about}`,
    "",
    ...base.columns.map((c) => `- ${c.label} (${c.commit}): ${c.note}.`),
    "",
    `| Path | ${base.columns.map((c) => `${c.label} (${c.commit})`).join(" | ")} | now | change vs first |`,
    `|---|${base.columns.map(() => "---:").join("|")}|---:|---:|`,
  ];
  for (const [path, gas] of now) {
    const before = base.columns.map((c) => c.gas[path]);
    lines.push(`| ${path} | ${before.map(cell).join(" | ")} | ${fmt(gas)} | ${change(before[0], gas)} |`);
  }
  lines.push("");
  return lines;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "agenthub-gas-"));
  const jsonPath = join(dir, "gas-stats.json");
  try {
    const { code, output } = await runHardhat([
      "test",
      "mocha",
      "--gas-stats",
      "--gas-stats-json",
      jsonPath,
      ...testFiles,
    ]);
    if (code !== 0 && !allowFailures) {
      console.error(`\ngas-report: the tests failed (exit ${code}); ${relative(root, outFile)} not written.`);
      console.error("Fix the tests or pass --allow-failures.");
      process.exit(code);
    }
    if (!existsSync(jsonPath)) {
      console.error("gas-report: Hardhat wrote no gas statistics (no tests ran?)");
      process.exit(1);
    }
    const stats = JSON.parse(readFileSync(jsonPath, "utf8")) as GasStatsJson;
    const all = Object.values(stats.contracts).sort((a, b) => a.contractName.localeCompare(b.contractName));
    const isMock = (c: ContractStats) =>
      c.sourceName.startsWith("contracts/test/") || !c.sourceName.startsWith("contracts/");
    const project = all.filter((c) => !isMock(c));
    const mocks = all.filter(isMock);

    const header = [
      "# Contract gas report",
      "",
      "Generated by `pnpm gas` (`scripts/gas-report.ts`), which runs",
      `\`hardhat test mocha --gas-stats --gas-stats-json\`${testFiles.length ? ` on ${testFiles.join(", ")}` : " on the whole contract test suite"}`,
      `and turns Hardhat's statistics into these tables. Commit ${await gitCommit()}, ${new Date().toISOString().slice(0, 10)};`,
      `hardhat ${toolVersion("hardhat")}, solc ${toolVersion("solc")} (optimizer on, ${solcSettings.optimizer.runs} runs, evm ${solcSettings.evmVersion}), in-process EDR chain 84532.`,
      "",
      ...(code === 0
        ? []
        : [`**Warning: some tests failed (exit ${code}); the numbers cover the tests that ran.**`, ""]),
      "Figures are gas units per call as measured during the tests, including the 21,000 intrinsic cost and calldata.",
      "They depend on state: a first write to a storage slot costs ~17,000 more than a later one, so min/max",
      "often differ by that. `view` rows are `eth_call`s made by the tests (what an off-chain read costs to simulate;",
      "free for callers). Contracts under `contracts/test/` are test mocks and are listed last.",
      "",
      ...comparison(corePaths(output)),
      "## Contracts",
      "",
    ];
    const body = project.map(contractSection);
    const mockPart = mocks.length ? ["## Test mocks", "", ...mocks.map(contractSection)] : [];
    writeFileSync(outFile, `${[...header, ...body, ...mockPart].join("\n").trimEnd()}\n`);
    console.log(`\ngas-report: wrote ${relative(root, outFile)} (${project.length} contracts, ${mocks.length} mocks)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
