// Bounty events (supplement §4): a bounty belongs to the organizations of the agents its poster speaks for (the
// agent's wallet or its token's owner), fixed once when the run goes on chain (api.run_org). bounty.created and
// bounty.completed go to those organizations; bounty.claimed goes to the claiming agent's. Each is queued in the
// transaction that records the change, under a dedupe key, so it is emitted once whatever retries or races.
import type pg from "pg";
import type { Logger } from "pino";
import { asSystem } from "../db/org-scope.ts";
import { queueOrgEvents } from "./webhook-outbox.ts";

type Queryable = Pick<pg.PoolClient, "query">;

export interface CreatedRun {
  id: number;
  poster: string;
  title: string;
  reward: bigint | string;
  /** unix seconds */
  deadline: bigint | number | string;
}

/**
 * Records the run's organizations (one agent each: the poster's own wallet first, else its lowest agent id) and
 * queues bounty.created for each. Call it in the transaction that links the run to its on-chain id. `agentView` is
 * deps.views.names.agent.
 */
export async function recordBountyCreated(db: Queryable, agentView: string, run: CreatedRun, txHash: string) {
  // Platform work: the poster's organizations may be other (isolated) ones than the requesting organization.
  return asSystem(db, () => recordBountyCreatedAll(db, agentView, run, txHash));
}

async function recordBountyCreatedAll(db: Queryable, agentView: string, run: CreatedRun, txHash: string) {
  await db.query(
    `insert into api.run_org (run_id, org_id, agent_id)
     select $1, org_id, agent_id from (
       select distinct on (w.org_id) w.org_id, a.id agent_id
         from ${agentView} a join api.agent_wallet w on w.agent_id = a.id
        where w.org_id is not null and (lower(a.wallet) = lower($2) or lower(a.owner) = lower($2))
        order by w.org_id, (lower(a.wallet) = lower($2)) desc, a.id) poster_orgs
     on conflict do nothing`,
    [run.id, run.poster],
  );
  const { rows } = await db.query<{ org_id: string; agent_id: string }>(
    "select org_id, agent_id::text from api.run_org where run_id = $1",
    [run.id],
  );
  await queueOrgEvents(
    db,
    "bounty.created",
    rows.map((r) => ({
      orgId: r.org_id,
      agentId: Number(r.agent_id),
      dedupeKey: `bounty.created:${run.id}`,
      data: {
        bountyId: run.id,
        agentId: Number(r.agent_id),
        poster: run.poster,
        title: run.title,
        reward: run.reward.toString(),
        deadline: new Date(Number(run.deadline) * 1000).toISOString(),
        txHash,
      },
    })),
  );
}

/** Queues bounty.completed for the run's organizations (the poster's), once per run. */
export async function queueBountyCompleted(
  db: Queryable,
  run: { id: number; agentId: number | null; reward: bigint | string },
  txHash: string,
) {
  const { rows } = await asSystem(db, () =>
    db.query<{ org_id: string; agent_id: string }>("select org_id, agent_id::text from api.run_org where run_id = $1", [
      run.id,
    ]),
  );
  await queueOrgEvents(
    db,
    "bounty.completed",
    rows.map((r) => ({
      orgId: r.org_id,
      agentId: Number(r.agent_id),
      dedupeKey: `bounty.completed:${run.id}`,
      data: {
        bountyId: run.id,
        agentId: run.agentId,
        posterAgentId: Number(r.agent_id),
        reward: run.reward.toString(),
        txHash,
      },
    })),
  );
}

/** bounty.completed after the change committed: never throws (the run is already paid), logs instead. */
export async function emitBountyCompleted(
  deps: { pool: pg.Pool; logger: Logger },
  run: { id: number; agentId: number | null; reward: bigint | string },
  txHash: string,
) {
  try {
    await queueBountyCompleted(deps.pool as unknown as Queryable, run, txHash);
  } catch (err) {
    deps.logger.error({ err, runId: run.id }, "could not queue bounty.completed");
  }
}
