// Emitting organization events: one outbox row per event (its exact JSON body) and one delivery row per webhook of
// the agent's organization subscribed to the event. Nothing is written for agents outside an organization or for
// events no webhook subscribes to. Delivery happens later (dispatch.ts), so emitting never waits on a receiver.
import type pg from "pg";
import type { Logger } from "pino";
import type { WebhookEvent } from "./events.ts";

type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;

const EMIT_SQL = `
  with input as (select * from jsonb_to_recordset($2::jsonb) as x(agent_id bigint, data jsonb)),
  targets as (
    select i.agent_id, i.data, w.org_id from input i join api.agent_wallet w on w.agent_id = i.agent_id
     where w.org_id is not null
       and exists (select 1 from api.org_webhook h where h.org_id = w.org_id and $1::text = any(h.events))
  ),
  ev as (
    insert into api.org_event (id, org_id, event, agent_id, body)
    select e.id, t.org_id, $1::text, t.agent_id,
           json_build_object(
             'id', e.id, 'event', $1::text,
             'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'organization', t.org_id, 'data', t.data)::text
      from targets t cross join lateral (select 'evt_' || replace(gen_random_uuid()::text, '-', '') id) e
    returning id, org_id
  )
  insert into api.webhook_delivery (event_id, webhook_id)
  select ev.id, h.id from ev join api.org_webhook h on h.org_id = ev.org_id and $1::text = any(h.events)
  returning event_id`;

/** Queues `event` for the organizations of the given agents (bulk form; runs on `db`, e.g. inside a transaction). */
export async function queueOrgEvents(
  db: Queryable,
  event: WebhookEvent,
  items: { agentId: number; data: Record<string, unknown> }[],
): Promise<number> {
  if (items.length === 0) return 0;
  const r = await db.query(EMIT_SQL, [
    event,
    JSON.stringify(items.map((i) => ({ agent_id: i.agentId, data: i.data }))),
  ]);
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
): Promise<void> {
  if (agentId === null || agentId === undefined) return;
  try {
    await queueOrgEvents(deps.pool, event, [{ agentId, data }]);
  } catch (err) {
    deps.logger.error({ err, event, agentId }, "could not queue organization event");
  }
}

/**
 * Queues `event` for every organization agent that `address` speaks for (the agent's generated wallet or the
 * identity token's owner), e.g. the poster of a run.
 */
export async function emitOrgEventForAddress(
  deps: { pool: pg.Pool; logger: Logger; env: { INDEXER_SCHEMA: string } },
  event: WebhookEvent,
  address: string,
  data: (agentId: number) => Record<string, unknown>,
): Promise<void> {
  try {
    const { rows } = await deps.pool.query<{ id: string }>(
      `select a.id::text from ${deps.env.INDEXER_SCHEMA}.agent a join api.agent_wallet w on w.agent_id = a.id
        where w.org_id is not null and (lower(a.wallet) = lower($1) or lower(a.owner) = lower($1))`,
      [address],
    );
    const items = rows.map((r) => ({ agentId: Number(r.id), data: data(Number(r.id)) }));
    await queueOrgEvents(deps.pool, event, items);
  } catch (err) {
    deps.logger.error({ err, event }, "could not queue organization event");
  }
}
