// Background jobs on a Postgres-backed queue (pg-boss, schema "pgboss", same database as the API).
//
// Scheduling: every API process ticks, and each tick asks pg-boss for the job of the current time slot
// (sendThrottled: one job per name per `interval` seconds, enforced by a unique index), so however many processes
// run, each slot produces one job. Periodic queues use the "singleton" policy (never two active at once) and every
// job is fetched by one worker (SKIP LOCKED). A process that dies mid-job leaves the job active until it expires;
// pg-boss then retries it on another process, and every handler is idempotent, so a crash loses nothing.
import { type Job, PgBoss } from "pg-boss";
import type { Deps } from "../context.ts";
import { QUEUES } from "../lib/queues.ts";
import { pruneStorage } from "../stores/retention.ts";
import { refreshSearchShares } from "../stores/search/shares.ts";
import { publishPendingProfiles } from "../use-cases/agents/publish-profile.ts";
import { pollBountyEvents } from "../webhooks/chain-bounty-events.ts";
import { dispatchWebhooks } from "../webhooks/dispatch.ts";
import { sweepFeesIfDue } from "./fee-sweep.ts";
import { keyCustody } from "./key-custody.ts";
import { dailyReputation, expireVerifications, pollRunChanges } from "./reputation.ts";
import { payRewardsDue } from "./reward-payout.ts";
import { endRunsPastWindows } from "./run-exits.ts";
import { runDueSubscriptions } from "./subscription-runs.ts";
import { planUptimePass, runUptimeBatch, type UptimeBatch } from "./uptime.ts";

export const JOB_SCHEMA = "pgboss";

export interface JobRunner {
  boss: PgBoss;
  /** Queues the periodic job `name` now (outside its slot); returns the job id. */
  runNow(name: string): Promise<string | null>;
  stop(): Promise<void>;
}

interface Periodic {
  name: string;
  every: number;
  expireInSeconds: number;
  run(job: Job<object>): Promise<unknown>;
}

export async function startJobs(deps: Deps): Promise<JobRunner> {
  const { env, logger } = deps;
  const boss = new PgBoss({
    connectionString: env.DATABASE_URL,
    schema: JOB_SCHEMA,
    max: 4,
    application_name: "agenthub-api-jobs",
  });
  boss.on("error", (err) => logger.error({ err }, "job queue error"));
  await boss.start();

  const batchExpiry = Math.ceil(
    (Math.ceil(env.UPTIME_BATCH_SIZE / env.UPTIME_CONCURRENCY) * (env.UPTIME_TIMEOUT_MS + 1000)) / 1000 + 60,
  );
  const periodic: Periodic[] = [
    {
      name: QUEUES.uptimePass,
      every: env.UPTIME_INTERVAL_SECONDS,
      expireInSeconds: 300,
      run: async (job) => {
        const batches = await planUptimePass(deps, job.id);
        if (batches.length > 0)
          await boss.insert(
            QUEUES.uptimeBatch,
            batches.map((data) => ({ data })),
          );
        return { batches: batches.length };
      },
    },
    {
      name: QUEUES.reputationDaily,
      every: env.REPUTATION_INTERVAL_SECONDS,
      expireInSeconds: 3600,
      run: () => dailyReputation(deps),
    },
    {
      name: QUEUES.verificationExpiry,
      every: env.EXPIRY_INTERVAL_SECONDS,
      expireInSeconds: 600,
      run: () => expireVerifications(deps),
    },
    {
      name: QUEUES.reputationPoll,
      every: env.RECOMPUTE_POLL_SECONDS,
      expireInSeconds: 300,
      run: () => pollRunChanges(deps),
    },
    {
      name: QUEUES.searchStats,
      every: env.SEARCH_STATS_INTERVAL_SECONDS,
      expireInSeconds: 600,
      run: () => refreshSearchShares(deps),
    },
    {
      // Organization webhooks: sends due deliveries from the outbox (api.webhook_delivery).
      name: QUEUES.webhookDispatch,
      every: env.WEBHOOK_DISPATCH_INTERVAL_SECONDS,
      expireInSeconds: 600,
      run: () => dispatchWebhooks(deps),
    },
    {
      // Bounty events of claims and completions made on chain directly, not through the API (dedupe keys).
      name: QUEUES.bountyEvents,
      every: env.WEBHOOK_DISPATCH_INTERVAL_SECONDS,
      expireInSeconds: 300,
      run: () => pollBountyEvents(deps),
    },
    {
      // Subscriptions: creates every due run on chain (jobs/subscription-runs.ts).
      name: QUEUES.subscriptionRuns,
      every: env.SUBSCRIPTION_INTERVAL_SECONDS,
      expireInSeconds: 600,
      run: () => runDueSubscriptions(deps),
    },
    {
      // Erases claimed keys after their redelivery window, adopts mints whose answer was lost, drops expired
      // idempotency records (and the claim codes sealed in them).
      name: QUEUES.keyCustody,
      every: env.KEY_CUSTODY_INTERVAL_SECONDS,
      expireInSeconds: 300,
      run: () => keyCustody(deps),
    },
    {
      // Coalesced profile updates: publishes each agent's latest profile on chain once its window ends.
      name: QUEUES.profilePublish,
      every: env.PROFILE_PUBLISH_INTERVAL_SECONDS,
      expireInSeconds: 600,
      run: () => publishPendingProfiles(deps),
    },
    {
      // Bounded storage: deletes nonces, tokens, rate-limit windows, old deliveries and spent x402 rows.
      name: QUEUES.prune,
      every: env.PRUNE_INTERVAL_SECONDS,
      expireInSeconds: 1800,
      run: () => pruneStorage(deps),
    },
    {
      // Accrued escrow fees go to the treasury in one transfer once they reach FEE_SWEEP_THRESHOLD.
      name: QUEUES.feeSweep,
      every: env.FEE_SWEEP_INTERVAL_SECONDS,
      expireInSeconds: 600,
      run: (job) => sweepFeesIfDue(deps, job.id),
    },
    {
      // Approved runs' rewards go to the agents' owners, every agent approved since the last tick in one transfer each.
      name: QUEUES.rewardPayout,
      every: env.REWARD_PAYOUT_INTERVAL_SECONDS,
      expireInSeconds: 300,
      run: (job) => payRewardsDue(deps, job.id),
    },
    {
      // Runs past the review window are released to the agent, disputes past the dispute window refunded to the poster.
      name: QUEUES.runExits,
      every: env.RUN_EXIT_INTERVAL_SECONDS,
      expireInSeconds: 600,
      run: () => endRunsPastWindows(deps),
    },
  ];

  const polling = (every: number) => Math.max(0.5, Math.min(2, every / 2));

  for (const p of periodic) {
    const options = { expireInSeconds: p.expireInSeconds, retryLimit: 3, retryDelay: 5, deleteAfterSeconds: 86_400 };
    await boss.createQueue(p.name, { policy: "singleton", ...options });
    await boss.updateQueue(p.name, options);
    await boss.work<object>(p.name, { pollingIntervalSeconds: polling(p.every) }, async ([job]) => {
      const started = performance.now();
      try {
        const result = await p.run(job!);
        logger.debug({ job: p.name, ms: Math.round(performance.now() - started), result }, "job done");
        return result;
      } catch (err) {
        // pg-boss retries it (retryDelay later); the log says why, which the job table alone hides from operators.
        logger.warn({ err, job: p.name, retry: job!.retryCount }, "job failed");
        throw err;
      }
    });
  }
  const batchOptions = { expireInSeconds: batchExpiry, retryLimit: 2, retryDelay: 5, deleteAfterSeconds: 86_400 };
  await boss.createQueue(QUEUES.uptimeBatch, { policy: "standard", ...batchOptions });
  await boss.updateQueue(QUEUES.uptimeBatch, batchOptions);
  await boss.work<UptimeBatch>(
    QUEUES.uptimeBatch,
    { pollingIntervalSeconds: polling(env.UPTIME_INTERVAL_SECONDS), localConcurrency: 2 },
    async ([job]) => runUptimeBatch(deps, job!.data),
  );

  // Each tick requests the current slot's job; duplicates from other ticks or processes are ignored by pg-boss.
  const tick = async (p: Periodic) => {
    try {
      await boss.sendThrottled(p.name, {}, null, p.every, p.name);
    } catch (err) {
      logger.warn({ err, job: p.name }, "could not schedule job");
    }
  };
  const timers = periodic.map((p) => {
    void tick(p);
    const t = setInterval(() => void tick(p), Math.min(p.every, 30) * 1000);
    t.unref();
    return t;
  });
  logger.info(
    Object.fromEntries(periodic.map((p) => [p.name, `${p.every}s`])),
    "background jobs started (pg-boss schema pgboss)",
  );

  return {
    boss,
    runNow: (name) => boss.send(name, {}, { singletonKey: name }),
    async stop() {
      for (const t of timers) clearInterval(t);
      await boss.stop({ graceful: true, timeout: 10_000 });
    },
  };
}

export { QUEUES };
