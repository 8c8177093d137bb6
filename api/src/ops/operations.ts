// What an operator watches: readiness and the Prometheus series of this API process. It has its own two-connection
// Postgres pool, so /ready and /metrics answer (and tell the truth) when the request pool is exhausted, and never
// take a connection a user request is waiting for.
import type { Deployments } from "@agenthub/common";
import { createRegistry } from "@agenthub/common/metrics";
import type { RelayerClient } from "@agenthub/relayer/client";
import pg from "pg";
import { Gauge, type Registry } from "prom-client";
import type { PublicClient } from "viem";
import type { ChainViews } from "../db/index.ts";
import type { ApiEnv } from "../env.ts";
import { QUEUES } from "../lib/queues.ts";
import { type Probe, probe, type Readiness } from "./readiness.ts";

/** Probe results are shared for this long: a flood of /ready or scrapes costs one round of probes a second. */
const PROBE_TTL_MS = 1_000;

interface Backlog {
  queues: { name: string; state: string; count: number }[];
  webhooks: { pending: number; due: number; oldestDueSeconds: number };
  payments: { scheme: string; status: string; count: number; oldestSeconds: number }[];
}

export class Operations {
  readonly registry: Registry;
  readonly pool: pg.Pool;
  private probed: { at: number; result: Promise<Probe> } | undefined;
  private backlog: { at: number; result: Promise<Backlog> } | undefined;

  constructor(
    private readonly env: ApiEnv,
    private readonly chain: PublicClient,
    private readonly relayer: RelayerClient,
    /** The request pool, only to report its usage. */
    private readonly requestPool: pg.Pool,
    private readonly deployments: Deployments | undefined,
    private readonly views: ChainViews,
  ) {
    this.pool = new pg.Pool({
      connectionString: env.DATABASE_URL,
      max: 2,
      connectionTimeoutMillis: env.READY_TIMEOUT_MS,
      statement_timeout: env.READY_TIMEOUT_MS,
      application_name: "agenthub-api-ops",
    });
    this.pool.on("error", () => {}); // an idle connection dropped: the next probe reports the database
    this.registry = createRegistry("agenthub");
    this.defineSeries();
  }

  async readiness(): Promise<Readiness> {
    return (await this.probe()).readiness;
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private probe(): Promise<Probe> {
    const now = Date.now();
    if (!this.probed || now - this.probed.at >= PROBE_TTL_MS) {
      this.probed = {
        at: now,
        result: probe({
          pool: this.pool,
          chain: this.chain,
          relayer: this.relayer,
          checkpointView: this.views.names.ponderCheckpoint,
          metaView: this.views.names.ponderMeta,
          maxLagBlocks: this.env.READY_MAX_INDEXER_LAG_BLOCKS,
          maxHeartbeatAgeSeconds: this.env.READY_MAX_INDEXER_HEARTBEAT_AGE_SECONDS,
          timeoutMs: this.env.READY_TIMEOUT_MS,
          bundler:
            this.env.BUNDLER_URL && this.deployments?.accountAbstraction
              ? { url: this.env.BUNDLER_URL, entryPoint: this.deployments.accountAbstraction.entryPoint }
              : undefined,
        }),
      };
    }
    return this.probed.result;
  }

  private readBacklog(): Promise<Backlog> {
    const now = Date.now();
    if (!this.backlog || now - this.backlog.at >= PROBE_TTL_MS) {
      this.backlog = { at: now, result: this.queryBacklog() };
    }
    return this.backlog.result;
  }

  private async queryBacklog(): Promise<Backlog> {
    const [queues, webhooks, payments] = await Promise.all([
      // pg-boss's job table: jobs waiting (created, retry) and running (active), per queue.
      this.pool
        .query<{ name: string; state: string; count: number }>(
          `select name, case when state = 'active' then 'active' else 'queued' end as state, count(*)::int as count
           from pgboss.job where state in ('created', 'retry', 'active') group by 1, 2`,
        )
        .then((r) => r.rows)
        .catch(() => []), // no job schema yet (no process runs jobs)
      this.pool
        .query<{ pending: number; due: number; oldest: number | null }>(
          `select count(*)::int as pending, count(*) filter (where next_attempt_at <= now())::int as due,
                  extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now()))::float8
                    as oldest
           from api.webhook_delivery where status = 'pending'`,
        )
        .then((r) => r.rows[0]),
      this.pool
        .query<{ scheme: string; status: string; count: number; oldest: number }>(
          `select scheme, status, count(*)::int as count, extract(epoch from now() - min(updated_at))::float8 as oldest
           from api.payment where status in ('PENDING', 'SETTLING') group by 1, 2`,
        )
        .then((r) => r.rows),
    ]);
    return {
      queues,
      webhooks: { pending: webhooks?.pending ?? 0, due: webhooks?.due ?? 0, oldestDueSeconds: webhooks?.oldest ?? 0 },
      payments: payments.map((p) => ({ ...p, oldestSeconds: p.oldest })),
    };
  }

  private defineSeries(): void {
    const registers = [this.registry];
    const gauge = (name: string, help: string, labelNames: string[], collect: (g: Gauge) => Promise<void>) =>
      new Gauge({
        name: `agenthub_${name}`,
        help,
        labelNames,
        registers,
        async collect() {
          // A failed probe leaves the series empty rather than failing the whole scrape (agenthub_up says why).
          await collect(this).catch(() => this.reset());
        },
      });

    gauge(
      "up",
      "1 when the dependency answers /ready's check (database, chain, relayer, indexer, bundler)",
      ["dependency"],
      async (g) => {
        const { checks } = await this.readiness();
        for (const [name, check] of Object.entries(checks)) if (check) g.set({ dependency: name }, check.ok ? 1 : 0);
      },
    );
    gauge("chain_head_block", "Latest block of the chain RPC", [], async (g) => {
      const { head } = await this.probe();
      if (head !== undefined) g.set(Number(head));
    });
    gauge("indexer_block", "Latest block the indexer has processed", [], async (g) => {
      const { indexed } = await this.probe();
      if (indexed !== undefined) g.set(Number(indexed));
    });
    gauge("indexer_lag_blocks", "Blocks between the chain head and the indexer", [], async (g) => {
      const { head, indexed } = await this.probe();
      if (head !== undefined && indexed !== undefined) g.set(Number(head > indexed ? head - indexed : 0n));
    });
    gauge(
      "indexer_heartbeat_age_seconds",
      "Seconds since the indexer last wrote its heartbeat (every 10 s while it runs)",
      [],
      async (g) => {
        const { heartbeatAgeSeconds } = await this.probe();
        if (heartbeatAgeSeconds !== undefined) g.set(heartbeatAgeSeconds);
      },
    );
    gauge("relayer_pending_transactions", "Relayer transactions sent and not yet mined", [], async (g) => {
      const { relayer } = await this.probe();
      if (relayer) g.set(relayer.pending);
    });
    gauge(
      "relayer_oldest_pending_transaction_seconds",
      "Age of the relayer's oldest unmined transaction",
      [],
      async (g) => {
        const { relayer } = await this.probe();
        if (relayer) g.set(relayer.oldestPendingSeconds);
      },
    );
    gauge("relayer_signer_balance_eth", "ETH balance of the relayer's signer", [], async (g) => {
      const { relayer } = await this.probe();
      if (relayer?.balanceWei != null) g.set(Number(relayer.balanceWei) / 1e18);
    });
    gauge("relayer_signer_balance_low", "1 when the relayer's signer is below its minimum balance", [], async (g) => {
      const { relayer } = await this.probe();
      if (relayer?.balanceLow != null) g.set(relayer.balanceLow ? 1 : 0);
    });
    gauge(
      "job_queue_depth",
      "Background jobs per queue: queued (waiting or retrying) and active",
      ["queue", "state"],
      async (g) => {
        const { queues } = await this.readBacklog();
        g.reset();
        for (const name of Object.values(QUEUES))
          for (const state of ["queued", "active"]) g.set({ queue: name, state }, 0);
        for (const q of queues) g.set({ queue: q.name, state: q.state }, q.count);
      },
    );
    gauge(
      "webhook_deliveries_pending",
      "Organization webhook deliveries not yet delivered (retries included)",
      [],
      async (g) => {
        g.set((await this.readBacklog()).webhooks.pending);
      },
    );
    gauge("webhook_deliveries_due", "Pending webhook deliveries whose next attempt is due now", [], async (g) => {
      g.set((await this.readBacklog()).webhooks.due);
    });
    gauge("webhook_oldest_due_seconds", "How long the oldest due webhook delivery has been waiting", [], async (g) => {
      g.set((await this.readBacklog()).webhooks.oldestDueSeconds);
    });
    gauge(
      "payments_unsettled",
      "Payments accepted but not settled (PENDING: being served; SETTLING: outcome unknown)",
      ["scheme", "status"],
      async (g) => {
        const { payments } = await this.readBacklog();
        g.reset();
        for (const scheme of ["agenthub", "x402-exact"])
          for (const status of ["PENDING", "SETTLING"]) g.set({ scheme, status }, 0);
        for (const p of payments) g.set({ scheme: p.scheme, status: p.status }, p.count);
      },
    );
    gauge("payments_oldest_unsettled_seconds", "Age of the oldest unsettled payment", [], async (g) => {
      const { payments } = await this.readBacklog();
      g.set(payments.reduce((oldest, p) => Math.max(oldest, p.oldestSeconds), 0));
    });
    gauge(
      "db_pool_connections",
      "Connections of the request pool: total, idle, and requests waiting for one",
      ["state"],
      async (g) => {
        g.set({ state: "total" }, this.requestPool.totalCount);
        g.set({ state: "idle" }, this.requestPool.idleCount);
        g.set({ state: "waiting" }, this.requestPool.waitingCount);
        g.set({ state: "max" }, this.env.DATABASE_POOL_SIZE);
      },
    );
  }
}
