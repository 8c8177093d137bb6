// Emitting organization events: one outbox row per event (its exact JSON body) and one delivery row per webhook of
// the agent's organization subscribed to the event. Nothing is written for agents outside an organization or for
// events no webhook subscribes to. Delivery happens later (dispatch.ts), so emitting never waits on a receiver.
import type pg from "pg";
import type { Logger } from "pino";
import type { Deps } from "../context.ts";
import { asSystem } from "../db/org-scope.ts";
import type { WebhookEvent } from "../webhooks/events.ts";

type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;

// Each input row names an agent and, optionally, the organization it speaks to (else the agent's own) and a dedupe
// key: a second event with the same key for the same organization is dropped (migration 150).
const EMIT_SQL = `
  with input as (
    select * from jsonb_to_recordset($2::jsonb) as x(agent_id bigint, org_id text, data jsonb, dedupe_key text)
  ),
  targets as (
    select i.agent_id, i.data, i.dedupe_key, coalesce(i.org_id, w.org_id) org_id
      from input i left join api.agent_wallet w on w.agent_id = i.agent_id
  ),
  ev as (
    insert into api.org_event (id, org_id, event, agent_id, body, dedupe_key)
    select e.id, t.org_id, $1::text, t.agent_id,
           json_build_object(
             'id', e.id, 'event', $1::text,
             'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'organization', t.org_id, 'data', t.data)::text,
           t.dedupe_key
      from targets t cross join lateral (select 'evt_' || replace(gen_random_uuid()::text, '-', '') id) e
     where t.org_id is not null
       and exists (select 1 from api.org_webhook h where h.org_id = t.org_id and $1::text = any(h.events))
    on conflict (org_id, dedupe_key) where dedupe_key is not null do nothing
    returning id, org_id
  )
  insert into api.webhook_delivery (event_id, webhook_id)
  select ev.id, h.id from ev join api.org_webhook h on h.org_id = ev.org_id and $1::text = any(h.events)
  returning event_id`;

export interface OrgEventItem {
  agentId: number;
  data: Record<string, unknown>;
  /** The organization to notify; default: the agent's own. */
  orgId?: string;
  /** Names the event: emitting the same key again for the same organization writes nothing. */
  dedupeKey?: string;
}

/** Queues `event` for the organizations of the given agents (bulk form; runs on `db`, e.g. inside a transaction). */
export async function queueOrgEvents(db: Queryable, event: WebhookEvent, items: OrgEventItem[]): Promise<number> {
  if (items.length === 0) return 0;
  // Platform work: the agent's organization may be another (isolated) one than the requesting organization.
  const r = await asSystem(db, () =>
    db.query(EMIT_SQL, [
      event,
      JSON.stringify(
        items.map((i) => ({
          agent_id: i.agentId,
          org_id: i.orgId ?? null,
          data: i.data,
          dedupe_key: i.dedupeKey ?? null,
        })),
      ),
    ]),
  );
  return r.rowCount ?? 0;
}

/**
 * Queues `event` about `agentId` for its organization's webhooks, right after the change it reports was committed.
 * Never throws: the change already happened, so a failure here is logged rather than turned into an error answer.
 */
export async function emitOrgEvent(
  deps: { pool: pg.Pool; logger: Logger },
  event: WebhookEvent,
  agentId: number | null | undefined,
  data: Record<string, unknown>,
  dedupeKey?: string,
): Promise<void> {
  if (agentId === null || agentId === undefined) return;
  try {
    await queueOrgEvents(deps.pool, event, [{ agentId, data, dedupeKey }]);
  } catch (err) {
    deps.logger.error({ err, event, agentId }, "could not queue organization event");
  }
}

// Delivery (webhooks/dispatch.ts): due deliveries are claimed with a lease, then marked delivered or rescheduled.

export interface ClaimedDelivery {
  id: string;
  attempts: number;
  event_id: string;
  event: string;
  body: string;
  webhook_id: string;
  url: string;
  secret_enc: Buffer;
}

const CLAIM_SQL = `
  update api.webhook_delivery d
     set lease_until = now() + make_interval(secs => $2), attempts = d.attempts + 1, last_attempt_at = now()
    from (select id from api.webhook_delivery
           where status = 'pending' and next_attempt_at <= now() and (lease_until is null or lease_until < now())
           order by next_attempt_at, id limit $1 for update skip locked) due,
         api.org_event e, api.org_webhook h
   where d.id = due.id and e.id = d.event_id and h.id = d.webhook_id
  returning d.id::text, d.attempts, d.event_id, e.event, e.body, d.webhook_id, h.url, h.secret_enc`;

/** Up to `limit` due deliveries, leased for `leaseSeconds` (other passes skip them), their attempt counted. */
export async function claimDueDeliveries(
  deps: Pick<Deps, "pool">,
  limit: number,
  leaseSeconds: number,
): Promise<ClaimedDelivery[]> {
  const { rows } = await deps.pool.query<ClaimedDelivery>(CLAIM_SQL, [limit, leaseSeconds]);
  return rows;
}

export async function markDelivered(deps: Pick<Deps, "pool">, id: string, statusCode: number | null): Promise<void> {
  await deps.pool.query(
    `update api.webhook_delivery set status = 'delivered', delivered_at = now(), lease_until = null,
            last_status_code = $2, last_error = null where id = $1`,
    [id, statusCode],
  );
}

export async function markAttemptFailed(
  deps: Pick<Deps, "pool">,
  id: string,
  a: { status: "failed" | "pending"; statusCode: number | null; error: string | null; retryInSeconds: number },
): Promise<void> {
  await deps.pool.query(
    `update api.webhook_delivery set status = $2, lease_until = null, last_status_code = $3, last_error = $4,
            next_attempt_at = now() + make_interval(secs => $5) where id = $1`,
    [id, a.status, a.statusCode, a.error, a.retryInSeconds],
  );
}
