// Governance facts from the indexer (proposals, votes, token holders) and the API's record of the proposals it was
// shown (api.governance_proposal_record: each creating transaction recorded once). Raw SQL over the indexer's
// views: the proposal list derives the Governor's state in SQL to filter on it.
import type { Deps } from "../context.ts";

type Reader = Pick<Deps, "pool" | "views">;

/**
 * IGovernor.ProposalState, by enum value. OpenZeppelin 5's GovernorTimelockControl never answers Expired: a
 * TimelockController operation has no grace period, so a queued proposal stays queued until executed or canceled.
 */
export const PROPOSAL_STATES = [
  "pending",
  "active",
  "canceled",
  "defeated",
  "succeeded",
  "queued",
  "expired",
  "executed",
] as const;
export type ProposalStatus = (typeof PROPOSAL_STATES)[number];

export interface ProposalRow {
  id: string;
  proposer: string;
  description: string;
  targets: string[];
  values: string[];
  calldatas: string[];
  vote_start: string;
  vote_end: string;
  for_votes: string;
  against_votes: string;
  abstain_votes: string;
  eta: string | null;
  created_at: string;
  created_tx: string;
}

/** The Governor's state() derived in SQL from indexed facts at chain time $1 with quorum $2 (for filtering). */
const DERIVED_STATUS = `case when p.executed then 'executed' when p.canceled then 'canceled'
  when p.vote_start >= $1 then 'pending' when p.vote_end >= $1 then 'active'
  when p.for_votes + p.abstain_votes < $2 or p.for_votes <= p.against_votes then 'defeated'
  when p.eta is null then 'succeeded' else 'queued' end`;

const columns = `p.id, p.proposer, p.description, p.targets, p."values", p.calldatas, p.vote_start::text,
  p.vote_end::text, p.for_votes::text, p.against_votes::text, p.abstain_votes::text, p.eta::text,
  p.created_at::text, p.created_tx`;

export interface ProposalFilter {
  status?: ProposalStatus;
  limit: number;
  offset: number;
  /** Chain time and quorum the derived state is computed at. */
  now: bigint;
  quorum: bigint;
}

/** Indexed proposals, newest first, whose derived state matches the filter, and how many match. */
export async function listProposalRows(
  deps: Reader,
  f: ProposalFilter,
): Promise<{ rows: ProposalRow[]; total: number }> {
  const schema = deps.views.names;
  const where = f.status ? `where (${DERIVED_STATUS}) = $3` : "";
  const params: unknown[] = f.status ? [f.now.toString(), f.quorum.toString(), f.status] : [];
  const [rows, count] = await Promise.all([
    deps.pool.query<ProposalRow>(
      `select ${columns} from ${schema.proposal} p ${where}
        order by p.created_at desc, p.id desc limit $${params.length + 1} offset $${params.length + 2}`,
      [...params, f.limit, f.offset],
    ),
    deps.pool.query<{ n: number }>(`select count(*)::int n from ${schema.proposal} p ${where}`, params),
  ]);
  return { rows: rows.rows, total: count.rows[0]!.n };
}

export async function findIndexedProposal(deps: Reader, id: bigint): Promise<ProposalRow | undefined> {
  const r = await deps.pool.query<ProposalRow>(
    `select ${columns} from ${deps.views.names.proposal} p where p.id = $1`,
    [id.toString()],
  );
  return r.rows[0];
}

/** Whether the indexer shows proposal `id` canceled. */
export async function proposalCanceledIndexed(deps: Reader, id: bigint): Promise<boolean> {
  const r = await deps.pool.query(`select 1 from ${deps.views.names.proposal} where id = $1 and canceled`, [
    id.toString(),
  ]);
  return (r.rowCount ?? 0) > 0;
}

/** Whether the indexer shows `voter`'s vote on proposal `id`. */
export async function voteIndexed(deps: Reader, id: bigint, voter: string): Promise<boolean> {
  const r = await deps.pool.query(
    `select 1 from ${deps.views.names.vote} where proposal_id = $1 and lower(voter) = lower($2)`,
    [id.toString(), voter],
  );
  return (r.rowCount ?? 0) > 0;
}

/** The holders who delegate their votes to `who` (not counting itself). */
export async function delegatorsOf(deps: Reader, who: string): Promise<string[]> {
  const r = await deps.pool.query<{ address: string }>(
    `select address from ${deps.views.names.tokenHolder}
      where lower(delegate) = lower($1) and lower(address) <> lower($1) order by address`,
    [who],
  );
  return r.rows.map((row) => row.address);
}

/** Records the proposal its creating transaction made; false when that proposal or transaction is recorded. */
export async function recordProposal(
  deps: Pick<Deps, "pool">,
  p: { proposalId: bigint; txHash: string; proposer: string },
): Promise<boolean> {
  const inserted = await deps.pool.query(
    `insert into api.governance_proposal_record (proposal_id, tx_hash, proposer) values ($1, $2, $3)
     on conflict do nothing`,
    [p.proposalId.toString(), p.txHash.toLowerCase(), p.proposer],
  );
  return inserted.rowCount === 1;
}
