// Reads agents from the indexer's views (chain facts) joined with API-owned tables (profile, reputation).
import type { Deps } from "../../context.ts";
import { type AgentStatus, deriveStatus, type StakeFacts, toTrustState } from "../../domain/agent-status.ts";

export interface AgentRecord {
  id: number;
  owner: string;
  wallet: string;
  /** The generated wallet still speaks for the agent (no transfer but the mint and the claim so far). */
  walletBound: boolean;
  metadataUri: string;
  claimed: boolean;
  registeredAt: bigint;
  profile: {
    name: string;
    description: string;
    capabilities: string[];
    programmingLangs: string[];
    domains: string[];
    tools: string[];
    endpoints: Record<string, string>;
    image: string | null;
  };
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

export function agentSelect(schema: string): string {
  return `
  select a.id::text, a.owner, a.wallet, a.wallet_bound, a.metadata_uri, a.claimed, a.registered_at::text,
         p.name, p.description, p.capabilities, p.programming_langs, p.domains, p.tools, p.endpoints, p.image,
         s.amount::text, s.pending_withdrawal::text, s.staked_at::text, s.trust_state, s.strikes,
         st.completions, st.total_claimed, st.total_volume::text,
         r.score,
         (select count(*) from api.agent_report ar where ar.agent_id = a.id)::text as report_count,
         w.org_id
    from ${schema}.agent a
    left join api.agent_profile p on p.agent_id = a.id
    left join ${schema}.stake s on s.agent_id = a.id
    left join ${schema}.agent_run_stats st on st.agent_id = a.id
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

export async function findAgent(
  deps: Pick<Deps, "pool" | "env">,
  id: number | bigint,
): Promise<AgentRecord | undefined> {
  const r = await deps.pool.query<Row>(`${agentSelect(deps.env.INDEXER_SCHEMA)} where a.id = $1`, [String(id)]);
  return r.rows[0] ? toAgentRecord(r.rows[0]) : undefined;
}

export async function listAgents(
  deps: Deps,
  page: number,
  limit: number,
  orgId?: string,
): Promise<{ agents: AgentRecord[]; total: number }> {
  const schema = deps.env.INDEXER_SCHEMA;
  const where = orgId ? "where w.org_id = $3" : "";
  const params: unknown[] = [limit, (page - 1) * limit];
  if (orgId) params.push(orgId);
  const [rows, count] = await Promise.all([
    deps.pool.query<Row>(`${agentSelect(schema)} ${where} order by a.id limit $1 offset $2`, params),
    deps.pool.query<{ n: string }>(
      orgId
        ? `select count(*)::text n from ${schema}.agent a join api.agent_wallet w on w.agent_id = a.id where w.org_id = $1`
        : `select count(*)::text n from ${schema}.agent`,
      orgId ? [orgId] : [],
    ),
  ]);
  return { agents: rows.rows.map(toAgentRecord), total: Number(count.rows[0]!.n) };
}

export function statusOf(agent: AgentRecord, now: bigint): AgentStatus {
  return deriveStatus(agent.stake, agent.completions, now);
}

export interface SlashEntry {
  amount: string;
  percentage: number;
  reason: string;
  beneficiary: string;
  txHash: string;
  timestamp: string;
}

export async function slashHistory(deps: Deps, agentId: number): Promise<SlashEntry[]> {
  const r = await deps.pool.query<{
    amount: string;
    bps: number;
    reason: string;
    account: string;
    tx_hash: string;
    timestamp: string;
  }>(
    `select amount::text, bps, reason, account, tx_hash, timestamp::text from ${deps.env.INDEXER_SCHEMA}.stake_event
      where agent_id = $1 and kind = 'SLASHED' order by block_number, id`,
    [agentId],
  );
  return r.rows.map((row) => ({
    amount: row.amount,
    percentage: row.bps / 100,
    reason: row.reason,
    beneficiary: row.account,
    txHash: row.tx_hash,
    timestamp: isoFromSeconds(BigInt(row.timestamp)),
  }));
}

export const isoFromSeconds = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();
