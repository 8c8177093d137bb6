// Child-process helpers shared by the local stack and the end-to-end tests.
import { type ChildProcess, spawn } from "node:child_process";

/** Preloaded into every service so it stops itself when its parent dies without stopping it (see the file). */
const parentWatch = new URL("./parent-watch.mjs", import.meta.url).href;

/** How long a stopped process gets after SIGTERM before SIGKILL, unless the caller's deadline says otherwise. */
export const DEFAULT_KILL_AFTER_MS = 8_000;

export interface Managed {
  name: string;
  child: ChildProcess;
  /** SIGTERM, then SIGKILL after `killAfterMs`; resolves once the process has exited. */
  stop(killAfterMs?: number): Promise<void>;
}

let shuttingDown = false;
/**
 * From now on no service output is forwarded. A terminal Ctrl-C also reaches the embedded Postgres (the library
 * spawns it in the orchestrator's process group), which shuts down at once; the services' complaints about their
 * closed connections while they are stopped in order are expected, not news.
 */
export function beginShutdown(): void {
  shuttingDown = true;
}

/** Spawns `cmd`, prefixes its output with `name`, and stops it with SIGTERM (then SIGKILL) on request. */
export function startProcess(
  name: string,
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; quiet?: boolean; onLine?: (line: string) => void } = {},
): Managed {
  const env = { ...process.env, ...opts.env };
  env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} --import ${parentWatch}`.trim();
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    // Own process group: a terminal Ctrl-C reaches only the orchestrator, which stops services in order.
    detached: true,
  });
  let stopping = false;
  const forward = (stream: NodeJS.ReadableStream | null) => {
    let buffer = "";
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) {
        opts.onLine?.(line);
        if (!opts.quiet && !stopping && !shuttingDown && line.trim()) process.stdout.write(`[${name}] ${line}\n`);
      }
    });
  };
  forward(child.stdout);
  forward(child.stderr);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    name,
    child,
    async stop(killAfterMs = DEFAULT_KILL_AFTER_MS) {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await stopWithin(exited, killAfterMs, () => child.kill("SIGKILL"));
    },
  };
}

/** Waits for `exited`; after `killAfterMs` calls `kill` (SIGKILL, which cannot be ignored) and waits again. */
export async function stopWithin(exited: Promise<unknown>, killAfterMs: number, kill: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), Math.max(0, killAfterMs));
  });
  const outcome = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (outcome === "late") {
    kill();
    await exited;
  }
}

/** Thrown by a waitFor probe to stop waiting at once (e.g. the process being waited on exited). */
export class FatalWait extends Error {}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  {
    timeoutMs = 60_000,
    intervalMs = 200,
    signal,
  }: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      if (error instanceof FatalWait) throw error;
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ""}`);
}

export async function rpcCall(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
