// Runs the `agenthub` CLI as a real process against the test stack (--json), as a script would: the bundle the
// package publishes (cli/bundle.mjs), built once per test process from the current sources.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import { bundleCli } from "../../cli/bundle.mjs";
import { freshIp, stack } from "./stack.ts";

const root = new URL("../..", import.meta.url).pathname;
let bundled: Promise<string> | undefined;
/** The path of the CLI bundle (built on first use). */
export const cliBundle = () => {
  if (!bundled) {
    const dir = mkdtempSync(join(tmpdir(), "agenthub-cli-bundle-"));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    bundled = bundleCli(join(dir, "agenthub.mjs"));
  }
  return bundled;
};

export interface CliResult {
  code: number;
  json: any;
  stdout: string;
  stderr: string;
}

export async function agenthub(
  args: string[],
  opts: {
    key?: Hex;
    env?: Record<string, string>;
    ip?: string;
    timeoutMs?: number;
    apiUrl?: string;
    /** Human output (tables) instead of --json. */
    human?: boolean;
    /** Sees stderr (progress) as it comes. */
    onStderr?: (text: string) => void;
  } = {},
): Promise<CliResult> {
  const child = spawn(
    process.execPath,
    [
      await cliBundle(),
      "--api",
      opts.apiUrl ?? stack.apiUrl,
      "--rpc",
      stack.rpcUrl,
      ...(opts.human ? [] : ["--json"]),
      // Each invocation is its own client (the stack trusts one proxy hop), so rate limits do not leak across tests.
      "--header",
      `x-forwarded-for:${opts.ip ?? freshIp()}`,
      ...args,
    ],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        ...(opts.key ? { AGENTHUB_PRIVATE_KEY: opts.key } : {}),
        ...opts.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => {
    stderr += d;
    opts.onStderr?.(String(d));
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
  const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? -1)));
  clearTimeout(timer);
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, json, stdout, stderr };
}

/** The CLI's JSON answer; fails with its output unless it exited 0. */
export async function ok(args: string[], opts: Parameters<typeof agenthub>[1] = {}): Promise<any> {
  const res = await agenthub(args, opts);
  if (res.code !== 0) {
    throw new Error(`agenthub ${args.join(" ")} exited ${res.code}\nstdout: ${res.stdout}\nstderr: ${res.stderr}`);
  }
  return res.json;
}
