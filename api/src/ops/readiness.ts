// Readiness: is every part a request may need up? Postgres, the chain RPC, the relayer, the indexer alive (its own
// heartbeat, within READY_MAX_INDEXER_HEARTBEAT_AGE_SECONDS: on a quiet chain a dead indexer falls no block behind)
// and caught up with the chain head (within READY_MAX_INDEXER_LAG_BLOCKS), and the ERC-4337 bundler when one is
// configured. Probes run on the operations pool, never on the pool user requests share, each with a deadline, and at
// most once a second however often /ready is asked.
import type { RelayerClient, RelayerStatus } from "@agenthub/relayer/client";
import type pg from "pg";
import type { PublicClient } from "viem";

export interface Check {
  ok: boolean;
  error?: string;
}

export interface Readiness {
  ready: boolean;
  /** Names of the checks that fail. */
  failing: (keyof Readiness["checks"])[];
  checks: {
    database: Check;
    chain: Check & { headBlock?: string };
    relayer: Check & { address?: string; pending?: number; balanceWei?: string | null; balanceLow?: boolean | null };
    indexer: Check & {
      indexedBlock?: string;
      lagBlocks?: number;
      maxLagBlocks: number;
      /** Seconds since the indexer last wrote its heartbeat (database clock). */
      heartbeatAgeSeconds?: number;
      maxHeartbeatAgeSeconds: number;
    };
    /** Present when BUNDLER_URL is set: it answers and serves the deployment's EntryPoint. */
    bundler?: Check & { entryPoint?: string };
  };
}

/** Everything the probes learned, for /ready and /metrics alike. */
export interface Probe {
  readiness: Readiness;
  head?: bigint;
  indexed?: bigint;
  heartbeatAgeSeconds?: number;
  relayer?: RelayerStatus;
}

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

const failure = (error: unknown) => ({ ok: false, error: (error as Error).message?.split("\n")[0] ?? String(error) });

export interface ReadinessOptions {
  pool: pg.Pool;
  chain: PublicClient;
  relayer: RelayerClient;
  /** The qualified names of Ponder's checkpoint and meta views. */
  checkpointView: string;
  metaView: string;
  maxLagBlocks: number;
  maxHeartbeatAgeSeconds: number;
  timeoutMs: number;
  bundler?: { url: string; entryPoint: string };
}

/** The bundler answers eth_supportedEntryPoints with our EntryPoint. */
async function probeBundler(bundler: { url: string; entryPoint: string }, timeoutMs: number): Promise<Check> {
  const res = await fetch(bundler.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_supportedEntryPoints", params: [] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as { result?: string[]; error?: { message: string } };
  if (!body.result) throw new Error(body.error?.message ?? `bundler answered ${res.status}`);
  if (!body.result.some((a) => a.toLowerCase() === bundler.entryPoint.toLowerCase())) {
    throw new Error(`bundler does not serve EntryPoint ${bundler.entryPoint}`);
  }
  return { ok: true };
}

export async function probe(opts: ReadinessOptions): Promise<Probe> {
  const { timeoutMs } = opts;
  const [database, head, indexed, heartbeat, relayer, bundler] = await Promise.allSettled([
    withDeadline(opts.pool.query("select 1"), timeoutMs, "postgres"),
    withDeadline(opts.chain.getBlockNumber({ cacheTime: 0 }), timeoutMs, "chain RPC"),
    withDeadline(
      // Ponder's checkpoint string is timestamp(10) | chain id(16) | block number(16) | ...
      opts.pool.query<{ block: string | null }>(
        `select max(substring(latest_checkpoint from 27 for 16)::numeric)::text as block
         from ${opts.checkpointView}`,
      ),
      timeoutMs,
      "indexer checkpoint",
    ),
    withDeadline(
      // Ponder's heartbeat (ms since the epoch, the indexer's clock) against the database's clock.
      opts.pool.query<{ age: number | null }>(
        `select extract(epoch from clock_timestamp()) - (value->>'heartbeat_at')::float8 / 1000 as age
         from ${opts.metaView} where key = 'app'`,
      ),
      timeoutMs,
      "indexer heartbeat",
    ),
    opts.relayer.status(),
    opts.bundler ? probeBundler(opts.bundler, timeoutMs) : Promise.resolve(undefined),
  ]);
  const out: Probe = {
    readiness: {
      ready: false,
      failing: [],
      checks: {
        database: database.status === "fulfilled" ? { ok: true } : failure(database.reason),
        chain: head.status === "fulfilled" ? { ok: true, headBlock: head.value.toString() } : failure(head.reason),
        relayer: { ok: false },
        indexer: { ok: false, maxLagBlocks: opts.maxLagBlocks, maxHeartbeatAgeSeconds: opts.maxHeartbeatAgeSeconds },
      },
    },
  };
  const { checks } = out.readiness;
  if (opts.bundler) {
    checks.bundler =
      bundler.status === "fulfilled"
        ? { ok: true, entryPoint: opts.bundler.entryPoint }
        : { ...failure(bundler.reason), entryPoint: opts.bundler.entryPoint };
  }
  if (head.status === "fulfilled") out.head = head.value;
  if (relayer.status === "fulfilled") {
    const r = relayer.value;
    out.relayer = r;
    const failing = Object.entries(r.checks ?? {}).filter(([, c]) => !c.ok);
    checks.relayer = {
      ok: r.ready,
      address: r.address,
      pending: r.pending,
      balanceWei: r.balanceWei,
      balanceLow: r.balanceLow,
      ...(failing.length ? { error: failing.map(([name, c]) => `${name}: ${c.error ?? "down"}`).join("; ") } : {}),
    };
  } else {
    checks.relayer = failure(relayer.reason);
  }
  const limits = { maxLagBlocks: opts.maxLagBlocks, maxHeartbeatAgeSeconds: opts.maxHeartbeatAgeSeconds };
  const age = heartbeat.status === "fulfilled" ? heartbeat.value.rows[0]?.age : undefined;
  if (age != null) out.heartbeatAgeSeconds = Math.max(0, age);
  if (indexed.status === "rejected") {
    checks.indexer = { ...failure(indexed.reason), ...limits };
  } else if (indexed.value.rows[0]?.block == null) {
    checks.indexer = { ok: false, error: "nothing indexed yet", ...limits };
  } else {
    out.indexed = BigInt(indexed.value.rows[0].block);
    const lag = out.head === undefined ? undefined : Number(out.head > out.indexed ? out.head - out.indexed : 0n);
    const heartbeatAge = out.heartbeatAgeSeconds;
    const error =
      heartbeatAge === undefined
        ? `no heartbeat: ${heartbeat.status === "rejected" ? failure(heartbeat.reason).error : "none written"}`
        : heartbeatAge > opts.maxHeartbeatAgeSeconds
          ? `no heartbeat for ${Math.round(heartbeatAge)} s: the indexer is down or stalled`
          : lag === undefined
            ? "chain head unknown"
            : lag > opts.maxLagBlocks
              ? `${lag} blocks behind the chain head`
              : undefined;
    checks.indexer = {
      ok: error === undefined,
      indexedBlock: out.indexed.toString(),
      lagBlocks: lag,
      ...(heartbeatAge === undefined ? {} : { heartbeatAgeSeconds: Math.round(heartbeatAge * 10) / 10 }),
      ...limits,
      ...(error ? { error } : {}),
    };
  }
  out.readiness.failing = Object.entries(checks)
    .filter(([, c]) => c && !c.ok)
    .map(([name]) => name as keyof Readiness["checks"]);
  out.readiness.ready = out.readiness.failing.length === 0;
  return out;
}
