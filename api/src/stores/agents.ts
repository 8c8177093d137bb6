// Agents: the indexer's views (chain facts) joined with API-owned tables (profile, reputation, wallet). The reads on
// every agent page are raw named statements (db/prepared.ts): planning this join costs more than running it.
import { eq, sql } from "drizzle-orm";
import type { Deps } from "../context.ts";
import type { ChainNames } from "../db/index.ts";
import { prepared } from "../db/prepared.ts";
import { type AgentStatus, deriveStatus, type StakeFacts, toTrustState } from "../domain/agent-status.ts";
import { isoFromSeconds } from "../lib/time.ts";
import { visibleOrgIds } from "./org-sharing.ts";
import type { ProfileText } from "./profiles.ts";
import { cachedRead } from "./read-cache.ts";
import { recordTxUse } from "./used-tx.ts";

type AgentDeps = Pick<Deps, "pool" | "views">;

export interface AgentRecord {
  id: number;
  owner: string;
  wallet: string;
  /** The generated wallet still speaks for the agent (no transfer but the mint and the claim so far). */
  walletBound: boolean;
  metadataUri: string;
  claimed: boolean;
  registeredAt: bigint;
  profile: ProfileText & { endpoints: Record<string, string>; image: string | null };
  stake: StakeFacts | null;
  stakedAt: bigint | null;
  completions: number;
  totalClaimed: number;
  totalVolume: string;
  score: number;
  reportCount: number;
  orgId: string | null;
}

interface Row {
  id: string;
  owner: string;
  wallet: string;
  wallet_bound: boolean;
  metadata_uri: string;
  claimed: boolean;
  registered_at: string;
  name: string | null;
  description: string | null;
  capabilities: string[] | null;
  programming_langs: string[] | null;
  domains: string[] | null;
  tools: string[] | null;
  endpoints: Record<string, string> | null;
  image: string | null;
  amount: string | null;
  pending_withdrawal: string | null;
  staked_at: string | null;
  trust_state: string | null;
  strikes: number | null;
  completions: number | null;
  total_claimed: number | null;
  total_volume: string | null;
  score: number | null;
  report_count: string;
  org_id: string | null;
}

/** The agent select; `extraColumns` are appended to the select list (they may refer to `a`). */
export function agentSelect(schema: ChainNames, extraColumns = ""): string {
  return `
  select a.id::text, a.owner, a.wallet, a.wallet_bound, a.metadata_uri, a.claimed, a.registered_at::text,
         p.name, p.description, p.capabilities, p.programming_langs, p.domains, p.tools, p.endpoints, p.image,
         s.amount::text, s.pending_withdrawal::text, s.staked_at::text, s.trust_state, s.strikes,
         st.completions, st.total_claimed, st.total_volume::text,
         r.score,
         (select count(*) from api.agent_report ar where ar.agent_id = a.id)::text as report_count,
         w.org_id${extraColumns ? `, ${extraColumns}` : ""}
    from ${schema.agent} a
    left join api.agent_profile p on p.agent_id = a.id
    left join ${schema.stake} s on s.agent_id = a.id
    left join ${schema.agentRunStats} st on st.agent_id = a.id
    left join api.reputation r on r.agent_id = a.id
    left join api.agent_wallet w on w.agent_id = a.id`;
}

const big = (v: string | null) => (v === null ? null : BigInt(v));

export function toAgentRecord(row: Row): AgentRecord {
  return {
    id: Number(row.id),
    owner: row.owner,
    wallet: row.wallet,
    walletBound: row.wallet_bound,
    metadataUri: row.metadata_uri,
    claimed: row.claimed,
    registeredAt: BigInt(row.registered_at),
    profile: {
      name: row.name ?? `agent-${row.id}`,
      description: row.description ?? "",
      capabilities: row.capabilities ?? [],
      programmingLangs: row.programming_langs ?? [],
      domains: row.domains ?? [],
      tools: row.tools ?? [],
      endpoints: row.endpoints ?? {},
      image: row.image,
    },
    stake:
      row.amount === null
        ? null
        : {
            amount: BigInt(row.amount),
            pendingWithdrawal: BigInt(row.pending_withdrawal ?? "0"),
            stakedAt: big(row.staked_at),
            trustState: toTrustState(row.trust_state),
            strikes: row.strikes ?? 0,
          },
    stakedAt: big(row.staked_at),
    completions: row.completions ?? 0,
    totalClaimed: row.total_claimed ?? 0,
    totalVolume: row.total_volume ?? "0",
    score: row.score ?? 50,
    reportCount: Number(row.report_count),
    orgId: row.org_id,
  };
}

// Reads on every agent page run as named (prepared) statements: planning this join costs several times its
// execution, and a prepared statement is planned once per connection.
export async function findAgent(deps: AgentDeps, id: number | bigint): Promise<AgentRecord | undefined> {
  const r = await deps.pool.query<Row>(prepared(`${agentSelect(deps.views.names)} where a.id = $1`, [String(id)]));
  return r.rows[0] ? toAgentRecord(r.rows[0]) : undefined;
}

/** The agent and its slash history in one statement (the agent page), through the read cache. */
export function findAgentDetail(
  deps: Pick<Deps, "pool" | "views" | "reads">,
  id: number,
): Promise<{ agent: AgentRecord; slashes: SlashEntry[] } | undefined> {
  return cachedRead(deps, `agent:${id}`, () => readAgentDetail(deps, id));
}

async function readAgentDetail(
  deps: AgentDeps,
  id: number,
): Promise<{ agent: AgentRecord; slashes: SlashEntry[] } | undefined> {
  const schema = deps.views.names;
  const r = await deps.pool.query<Row & { slashes: SlashRow[] }>(
    prepared(
      `${agentSelect(
        schema,
        `(select coalesce(json_agg(json_build_object('amount', e.amount::text, 'bps', e.bps, 'reason', e.reason,
                 'account', e.account, 'tx_hash', e.tx_hash, 'timestamp', e.timestamp::text)
                 order by e.block_number, e.id), '[]')
          from ${schema.stakeEvent} e where e.agent_id = a.id and e.kind = 'SLASHED') as slashes`,
      )} where a.id = $1`,
      [String(id)],
    ),
  );
  const row = r.rows[0];
  return row ? { agent: toAgentRecord(row), slashes: row.slashes.map(toSlashEntry) } : undefined;
}

/** What a list item shows of an agent (the list reads nothing else). */
export interface AgentListEntry {
  id: number;
  wallet: string;
  metadataUri: string;
  claimed: boolean;
  registeredAt: bigint;
  profile: Pick<AgentRecord["profile"], "name" | "capabilities" | "programmingLangs" | "domains" | "tools">;
}

interface ListRow {
  id: string;
  wallet: string;
  metadata_uri: string;
  claimed: boolean;
  registered_at: string;
  name: string | null;
  capabilities: string[] | null;
  programming_langs: string[] | null;
  domains: string[] | null;
  tools: string[] | null;
}

/**
 * A page of agents by id and the exact total (the route caches the whole answer: cachedAnswer). With `orgId`: the
 * organization's agents and those of organizations sharing reputation with it.
 */
export async function listAgents(
  deps: Pick<Deps, "pool" | "views">,
  page: number,
  limit: number,
  orgId?: string,
): Promise<{ agents: AgentListEntry[]; total: number }> {
  const schema = deps.views.names;
  const orgIds = orgId ? await visibleOrgIds(deps, orgId) : null;
  const scope = orgIds ? "join api.agent_wallet w on w.agent_id = a.id where w.org_id = any($3::text[])" : "";
  const params: unknown[] = [limit, (page - 1) * limit];
  if (orgIds) params.push(orgIds);
  const [rows, count] = await Promise.all([
    deps.pool.query<ListRow>(
      prepared(
        `select a.id::text, a.wallet, a.metadata_uri, a.claimed, a.registered_at::text,
                p.name, p.capabilities, p.programming_langs, p.domains, p.tools
           from ${schema.agent} a
           left join api.agent_profile p on p.agent_id = a.id
           ${scope}
          order by a.id limit $1 offset $2`,
        params,
      ),
    ),
    deps.pool.query<{ n: string }>(
      prepared(
        orgIds
          ? `select count(*)::text n from ${schema.agent} a join api.agent_wallet w on w.agent_id = a.id where w.org_id = any($1::text[])`
          : `select count(*)::text n from ${schema.agent}`,
        orgIds ? [orgIds] : [],
      ),
    ),
  ]);
  return {
    agents: rows.rows.map((r) => ({
      id: Number(r.id),
      wallet: r.wallet,
      metadataUri: r.metadata_uri,
      claimed: r.claimed,
      registeredAt: BigInt(r.registered_at),
      profile: {
        name: r.name ?? "",
        capabilities: r.capabilities ?? [],
        programmingLangs: r.programming_langs ?? [],
        domains: r.domains ?? [],
        tools: r.tools ?? [],
      },
    })),
    total: Number(count.rows[0]!.n),
  };
}

export function statusOf(agent: AgentRecord, now: bigint, minStake: bigint): AgentStatus {
  return deriveStatus(agent.stake, agent.completions, now, minStake);
}

export interface SlashEntry {
  amount: string;
  percentage: number;
  reason: string;
  beneficiary: string;
  txHash: string;
  timestamp: string;
}

interface SlashRow {
  amount: string;
  bps: number;
  reason: string;
  account: string;
  tx_hash: string;
  timestamp: string;
}

const toSlashEntry = (row: SlashRow): SlashEntry => ({
  amount: row.amount,
  percentage: row.bps / 100,
  reason: row.reason,
  beneficiary: row.account,
  txHash: row.tx_hash,
  timestamp: isoFromSeconds(BigInt(row.timestamp)),
});

export async function slashHistory(deps: AgentDeps, agentId: number): Promise<SlashEntry[]> {
  const r = await deps.pool.query<SlashRow>(
    `select amount::text, bps, reason, account, tx_hash, timestamp::text from ${deps.views.names.stakeEvent}
      where agent_id = $1 and kind = 'SLASHED' order by block_number, id`,
    [agentId],
  );
  return r.rows.map(toSlashEntry);
}

/** Records a stake transaction once, ever; false when it was already recorded. */
export async function recordStakeTx(
  deps: Pick<Deps, "pool">,
  r: { txHash: string; agentId: number; wallet: string; amount: bigint },
): Promise<boolean> {
  return recordTxUse(deps.pool, {
    txHash: r.txHash,
    purpose: "stake",
    subject: r.agentId,
    detail: { wallet: r.wallet, amount: r.amount.toString() },
  });
}

/** The StakeVault events the indexer holds for transaction `hash`: how many, and the largest slash amount. */
export async function stakeEventsOfTx(
  deps: Pick<Deps, "db" | "views">,
  hash: string,
): Promise<{ n: number; slashed: string | null }> {
  const e = deps.views.stakeEvent;
  const rows = await deps.db
    .select({
      n: sql<number>`count(*)::int`,
      slashed: sql<string | null>`(max(${e.amount}) filter (where ${e.kind} = 'SLASHED'))::text`,
    })
    .from(e)
    .where(eq(e.txHash, hash.toLowerCase()));
  return rows[0] ?? { n: 0, slashed: null };
}

export type SlashKeyClaim = "new" | "retry" | "other";

/** Binds an admin slash Idempotency-Key to its request: new, a retry of the same slash, or another slash. */
export async function claimSlashKey(
  deps: Pick<Deps, "pool">,
  key: string,
  slash: { agentId: number; bps: number; reason: string },
): Promise<SlashKeyClaim> {
  const inserted = await deps.pool.query(
    `insert into api.admin_slash (idempotency_key, agent_id, bps, reason) values ($1, $2, $3, $4)
     on conflict do nothing`,
    [key, slash.agentId, slash.bps, slash.reason],
  );
  if (inserted.rowCount === 1) return "new";
  const { rows } = await deps.pool.query<{ agent_id: string; bps: number; reason: string }>(
    "select agent_id::text, bps, reason from api.admin_slash where idempotency_key = $1",
    [key],
  );
  const first = rows[0];
  return first && Number(first.agent_id) === slash.agentId && first.bps === slash.bps && first.reason === slash.reason
    ? "retry"
    : "other";
}

/** Frees a slash key whose slash was not sent, so it may be used again. */
export async function releaseSlashKey(deps: Pick<Deps, "pool">, key: string): Promise<void> {
  await deps.pool.query("delete from api.admin_slash where idempotency_key = $1", [key]);
}
