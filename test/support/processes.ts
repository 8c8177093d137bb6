// Extra API processes against the same database and chain, for tests of state shared across processes.
import assert from "node:assert/strict";
import { join } from "node:path";
import { repoRoot } from "../../scripts/lib/chain.ts";
import { busyPorts } from "../../scripts/lib/ports.ts";
import { startProcess, waitFor } from "../../scripts/lib/process.ts";
import { freePort } from "../../scripts/lib/stack.ts";
import { stack } from "./stack.ts";

/** Another API process on the same database and chain; `env` overrides the stack's API environment. */
export async function startExtraApi(env: Record<string, string> = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const proc = startProcess("api-2", join(repoRoot, "node_modules", ".bin", "tsx"), ["src/main.ts"], {
    cwd: join(repoRoot, "api"),
    env: { ...stack.env, ...env, PORT: String(port) },
    quiet: true,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor("second API process", async () => {
    if (proc.child.exitCode !== null) throw new Error(`second API exited with ${proc.child.exitCode}`);
    return (await fetch(`${url}/health`)).ok || undefined;
  });
  return { url, stop: () => proc.stop() };
}

/** An extra relayer process against the stack's database and chain; `lines` collects its (pino JSON) log lines. */
export async function startExtraRelayer(
  env: Record<string, string>,
): Promise<{ url: string; lines: string[]; stop(): Promise<void> }> {
  const port = await freePort();
  const lines: string[] = [];
  const proc = startProcess("relayer-2", join(repoRoot, "node_modules", ".bin", "tsx"), ["src/main.ts"], {
    cwd: join(repoRoot, "relayer"),
    env: { ...stack.env, RELAYER_PORT: String(port), ...env },
    quiet: process.env.E2E_VERBOSE !== "true",
    onLine: (line) => lines.push(line),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor("extra relayer", async () => {
    if (proc.child.exitCode !== null) throw new Error(`extra relayer exited: ${lines.slice(-5).join("\n")}`);
    return (await fetch(`${url}/health`)).ok || undefined;
  });
  return { url, lines, stop: () => proc.stop() };
}

/** Freezes the process listening at `url` (SIGSTOP) until the returned function resumes it (SIGCONT). */
export async function freezeProcessOnPort(url: string): Promise<() => void> {
  const [holder] = await busyPorts([Number(new URL(url).port)]);
  assert.ok(holder?.pid, `no process found listening at ${url}`);
  process.kill(holder.pid, "SIGSTOP");
  return () => process.kill(holder.pid!, "SIGCONT");
}
