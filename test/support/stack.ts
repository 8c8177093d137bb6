// What an end-to-end test knows about the running stack (written by scripts/test-e2e.ts).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { agentHubChain, type Deployments, loadDeployments } from "@agenthub/common";
import pg from "pg";
import { createPublicClient, createWalletClient, type Hex, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

interface StackInfo {
  apiUrl: string;
  rpcUrl: string;
  databaseUrl: string;
  relayerUrl: string;
  indexerUrl: string;
  deploymentsFile: string;
  secrets: { keyEncryptionKey: string; adminToken: string; relayerToken: string; metricsToken: string };
  env: Record<string, string>;
}

const file = process.env.AGENTHUB_STACK;
if (!file) throw new Error("AGENTHUB_STACK is not set: run end-to-end tests through `pnpm run test:e2e`");
export const stack: StackInfo = JSON.parse(readFileSync(file, "utf8"));
export const deployments: Deployments = loadDeployments(stack.deploymentsFile);
export const chain = agentHubChain(stack.rpcUrl);
export const publicClient = createPublicClient({ chain, transport: http(stack.rpcUrl), pollingInterval: 50 });
export const db = new pg.Pool({ connectionString: stack.databaseUrl, max: 4 });

// Test files run in their own processes against one stack whose rate limits live for the whole suite: each process
// takes a random 48-bit prefix (a pid modulo something repeats across a hundred files and collided in CI), and each
// call its own /64 under it, since per-IP limits key IPv6 clients by their /64.
const ipPrefix = `fd${randomBytes(5).toString("hex")}`.replace(/(.{4})(?=.)/g, "$1:");
let ipCounter = 0;
/** A distinct client (its own /64) per call, in this process and across the suite's processes. */
export function freshIp(): string {
  ipCounter += 1;
  return `${ipPrefix}:${ipCounter.toString(16)}::1`;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function api<T = any>(
  method: string,
  path: string,
  opts: { body?: unknown; rawBody?: string; headers?: Record<string, string>; ip?: string } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { "x-forwarded-for": opts.ip ?? freshIp(), ...opts.headers };
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(`${stack.apiUrl}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* non-JSON (HTML pages) */
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

export function newWallet() {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  const wallet = createWalletClient({ account, chain, transport: http(stack.rpcUrl) });
  return { key: key as Hex, account, address: account.address, wallet };
}

/** Probes every `intervalMs` until `probe` answers something truthy; fails after `timeoutMs`. */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The database's clock, the one pg-boss stamps jobs with. */
export async function dbNow(): Promise<string> {
  return (await db.query<{ t: string }>("select now()::text t")).rows[0]!.t;
}

/**
 * Waits until a run of background job `queue` (pg-boss queue name, api/src/lib/queues.ts) that started after
 * `since` (dbNow()) has completed: a test awaits the job itself instead of sleeping through a few of its intervals,
 * so it neither passes early by luck nor fails on a loaded machine where a tick comes late.
 */
export async function jobRanSince(queue: string, since: string, timeoutMs = 90_000): Promise<void> {
  await waitUntil(
    `a ${queue} job started after ${since} to complete`,
    async () =>
      (
        await db.query(
          "select 1 from pgboss.job where name = $1 and state = 'completed' and started_on > $2::timestamptz limit 1",
          [queue, since],
        )
      ).rowCount,
    timeoutMs,
  );
}

export async function rpc(method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(stack.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const json = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (json.error) throw new Error(json.error.message);
  return json.result;
}

/** Moves chain time with evm_increaseTime + evm_mine (hardhat_mine would break the indexer). */
export async function increaseTime(seconds: number): Promise<void> {
  await rpc("evm_increaseTime", [seconds]);
  await rpc("evm_mine");
}

/**
 * Waits until the API's chain clock (GET /api/time; cached for up to half a second) has reached the latest block,
 * so a time rule checked next sees the time just moved to.
 */
export async function apiClockCaughtUp(): Promise<void> {
  const { timestamp } = await publicClient.getBlock({ blockTag: "latest" });
  await waitUntil(
    `the API's chain clock to reach ${timestamp}`,
    async () => (await api<{ unixSeconds: number }>("GET", "/api/time")).body.unixSeconds >= Number(timestamp),
    5_000,
  );
}
