// Runs (api.run, api.run_action, api.run_lock): the API's draft row joined with the indexer's view of the escrow
// (chain wins once funded), who asked for each step, and the per-run lease that serializes writes. The run reads
// are named raw statements (db/prepared.ts): the join over three indexer views is on every run page.
import { randomUUID } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Deps } from "../context.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { type ChainNames, createDb, type Queryable } from "../db/index.ts";
import { prepared } from "../db/prepared.ts";
import { runAction, run as runTable } from "../db/schema/index.ts";
import { API_TO_CONTRACT, apiState, feeOf, type RunState } from "../domain/run-state.ts";
import { apiError } from "../errors.ts";
import { currentFeeBps } from "../lib/protocol.ts";
import { orgRunCondition } from "./org-scope.ts";
import { recordTxUse } from "./used-tx.ts";

type RunDeps = Pick<Deps, "pool" | "views" | "params">;

/** What a run list item shows (the list reads nothing else). */
export type RunListEntry = Omit<
  RunRecord,
  | "agentWallet"
  | "agentWalletBound"
  | "agentOwner"
  | "claimedByWallet"
  | "agentStake"
  | "claimedAt"
  | "submittedAt"
  | "revisionRequestedAt"
  | "deliverableHash"
  | "failedAgentId"
>;

export interface RunRecord {
  id: number;
  onchainRunId: bigint | null;
  poster: string;
  title: string;
  description: string;
  requestUri: string;
  reward: bigint;
  fee: bigint;
  deadline: bigint;
  maxRevisions: number;
  revisions: number;
  state: RunState;
  agentId: number | null;
  agentWallet: string | null;
  agentWalletBound: boolean;
  agentOwner: string | null;
  claimedByWallet: string | null;
  agentStake: bigint | null;
  claimedAt: bigint | null;
  submittedAt: bigint | null;
  /** Chain time of the last revision request (the agent must resubmit within RevisionRequested's timeout). */
  revisionRequestedAt: bigint | null;
  deliverableHash: string | null;
  failedAgentId: number | null;
  /**
   * USDC base units of active insurance coverage an agent needs to claim the run: the cover (agreed damages) the
   * poster set in the InsurancePool, else the one its draft declares (0n: none).
   */
  requiredCoverage: bigint;
  /** The draft declares a cover that is not on chain yet: agents cannot claim through the API until it is. */
  coverPending: boolean;
  fundingTx: string | null;
  createdAt: Date;
}

interface ListRow {
  id: string;
  poster_address: string;
  title: string;
  description: string;
  d_reward: string;
  d_deadline: string;
  d_max_revisions: number;
  request_cid: string;
  declared_coverage: string | null;
  onchain_run_id: string | null;
  funding_tx: string | null;
  created_at: Date;
  c_state: string | null;
  c_reward: string | null;
  c_fee: string | null;
  c_deadline: string | null;
  c_max_revisions: number | null;
  c_revisions: number | null;
  c_agent_id: string | null;
  c_metadata_uri: string | null;
  c_required_coverage: string | null;
}

interface Row extends ListRow {
  c_claimed_at: string | null;
  c_submitted_at: string | null;
  c_revision_requested_at: string | null;
  c_deliverable_hash: string | null;
  c_failed_agent_id: string | null;
  a_wallet: string | null;
  a_wallet_bound: boolean | null;
  a_owner: string | null;
  s_amount: string | null;
  s_pending: string | null;
  claim_signer: string | null;
}

/** The columns every run read needs (a list item shows nothing else). */
function runListSelect(schema: ChainNames, detailColumns = "", detailJoins = ""): string {
  return `
  select r.id::text, r.poster_address, r.title, r.description, r.reward::text d_reward, r.deadline::text d_deadline,
         r.max_revisions d_max_revisions, r.request_cid, r.declared_coverage::text, r.onchain_run_id::text, r.funding_tx, r.created_at,
         c.state c_state, c.reward::text c_reward, c.fee::text c_fee, c.deadline::text c_deadline,
         c.max_revisions c_max_revisions, c.revisions c_revisions, c.agent_id::text c_agent_id,
         c.metadata_uri c_metadata_uri, c.required_coverage::text c_required_coverage${detailColumns}
    from api.run r
    left join ${schema.run} c on c.id = r.onchain_run_id${detailJoins}`;
}

/** A run with its agent, the agent's stake and who signed the claim (the run page and every run operation). */
function runSelect(schema: ChainNames): string {
  return runListSelect(
    schema,
    `,
         c.claimed_at::text c_claimed_at, c.submitted_at::text c_submitted_at, c.deliverable_hash c_deliverable_hash,
         c.revision_requested_at::text c_revision_requested_at, c.failed_agent_id::text c_failed_agent_id,
         a.wallet a_wallet, a.wallet_bound a_wallet_bound, a.owner a_owner, s.amount::text s_amount, s.pending_withdrawal::text s_pending,
         (select ra.signer from api.run_action ra
           where ra.run_id = r.id and ra.action = 'claim-run' and ra.agent_id = c.agent_id
           order by ra.id desc limit 1) claim_signer`,
    `
    left join ${schema.agent} a on a.id = c.agent_id
    left join ${schema.stake} s on s.agent_id = c.agent_id`,
  );
}

const big = (v: string | null) => (v === null ? null : BigInt(v));
const num = (v: string | null) => (v === null ? null : Number(v));

/** `draftFeeBps`: the escrow's current rate, for runs the indexer has no fee for yet (drafts). */
function toListEntry(row: ListRow, draftFeeBps: bigint): RunListEntry {
  const funded = row.onchain_run_id !== null;
  const reward = BigInt(row.c_reward ?? row.d_reward);
  const onChainCover = BigInt(row.c_required_coverage ?? "0");
  const declaredCover = BigInt(row.declared_coverage ?? "0");
  return {
    id: Number(row.id),
    onchainRunId: big(row.onchain_run_id),
    poster: row.poster_address,
    title: row.title,
    description: row.description,
    requestUri: row.c_metadata_uri ?? `ipfs://${row.request_cid}`,
    reward,
    fee: row.c_fee !== null ? BigInt(row.c_fee) : feeOf(reward, draftFeeBps),
    deadline: BigInt(row.c_deadline ?? row.d_deadline),
    maxRevisions: row.c_max_revisions ?? row.d_max_revisions,
    revisions: row.c_revisions ?? 0,
    state: apiState(row.c_state, funded),
    agentId: num(row.c_agent_id),
    requiredCoverage: onChainCover > 0n ? onChainCover : declaredCover,
    coverPending: onChainCover === 0n && declaredCover > 0n,
    fundingTx: row.funding_tx,
    createdAt: row.created_at,
  };
}

function toRecord(row: Row, draftFeeBps: bigint): RunRecord {
  const indexed = row.c_state !== null;
  const entry = toListEntry(row, draftFeeBps);
  const { agentId } = entry;
  return {
    ...entry,
    agentWallet: row.a_wallet,
    agentWalletBound: row.a_wallet_bound === true,
    agentOwner: row.a_owner,
    claimedByWallet: agentId === null ? null : (row.claim_signer ?? row.a_wallet),
    agentStake:
      agentId === null || !indexed
        ? null
        : row.s_amount === null
          ? 0n
          : BigInt(row.s_amount) - BigInt(row.s_pending ?? "0"),
    claimedAt: big(row.c_claimed_at),
    submittedAt: big(row.c_submitted_at),
    revisionRequestedAt: big(row.c_revision_requested_at),
    deliverableHash: row.c_deliverable_hash,
    failedAgentId: num(row.c_failed_agent_id),
  };
}

export async function findRun(deps: RunDeps, id: number): Promise<RunRecord | undefined> {
  const r = await deps.pool.query<Row>(prepared(`${runSelect(deps.views.names)} where r.id = $1`, [id]));
  return (await toRecords(deps, r.rows, toRecord))[0];
}

/** Rows to records; the escrow's current fee rate is read only when a row has no indexed fee. */
async function toRecords<R extends ListRow, T>(
  deps: RunDeps,
  rows: R[],
  convert: (row: R, draftFeeBps: bigint) => T,
): Promise<T[]> {
  const draftFeeBps = rows.some((row) => row.c_fee === null) ? await currentFeeBps(deps) : 0n;
  return rows.map((row) => convert(row, draftFeeBps));
}

/** The cover the indexer shows for on-chain run `onchainRunId` (0n: none yet). */
export async function indexedRunCover(deps: Pick<Deps, "pool" | "views">, onchainRunId: bigint): Promise<bigint> {
  const r = await deps.pool.query<{ cover: string | null }>(
    `select required_coverage::text cover from ${deps.views.names.run} where id = $1`,
    [onchainRunId.toString()],
  );
  return BigInt(r.rows[0]?.cover ?? "0");
}

export interface RunFilter {
  page: number;
  limit: number;
  state?: RunState;
  minReward?: bigint;
  /** Only runs this agent holds or held (claimed, worked on, paid). */
  agentId?: number;
  /** Only runs this address posted (lowercase hex). */
  poster?: string;
  /** Only the organization's runs (its agents work on or post them). */
  orgId?: string;
}

/** A page of runs, newest first, and the exact total (the route caches the whole answer: cachedAnswer). */
export async function listRuns(deps: RunDeps, filter: RunFilter): Promise<{ runs: RunListEntry[]; total: number }> {
  const schema = deps.views.names;
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.state === "DRAFT") where.push("r.onchain_run_id is null");
  else if (filter.state === "OPEN") {
    // A funded run the indexer has not caught up with yet is OPEN too (see apiState).
    where.push("r.onchain_run_id is not null and coalesce(c.state, 'Open') = 'Open'");
  } else if (filter.state) {
    params.push(API_TO_CONTRACT[filter.state]);
    where.push(`c.state = $${params.length}`);
  }
  if (filter.minReward !== undefined) {
    params.push(filter.minReward.toString());
    where.push(`coalesce(c.reward, r.reward) >= $${params.length}::numeric`);
  }
  if (filter.agentId !== undefined) {
    params.push(filter.agentId);
    where.push(`c.agent_id = $${params.length}`);
  }
  if (filter.poster !== undefined) {
    params.push(filter.poster);
    where.push(`lower(r.poster_address) = $${params.length}`);
  }
  if (filter.orgId !== undefined) {
    params.push(filter.orgId);
    where.push(orgRunCondition(schema.agent, `$${params.length}`, "c.agent_id", "r.poster_address"));
  }
  const clause = where.length ? `where ${where.join(" and ")}` : "";
  const countSql = `select count(*)::text n from api.run r left join ${schema.run} c on c.id = r.onchain_run_id ${clause}`;
  const pageParams = [...params, filter.limit, (filter.page - 1) * filter.limit];
  const [rows, count] = await Promise.all([
    // Filters only choose which conditions appear (values are parameters): a bounded set of statements.
    deps.pool.query<ListRow>(
      prepared(
        `${runListSelect(schema)} ${clause} order by r.id desc limit $${params.length + 1} offset $${params.length + 2}`,
        pageParams,
      ),
    ),
    deps.pool.query<{ n: string }>(prepared(countSql, params)),
  ]);
  return { runs: await toRecords(deps, rows.rows, toListEntry), total: Number(count.rows[0]!.n) };
}

export interface RunEventRecord {
  kind: string;
  contractState: string;
  agentId: number | null;
  sender: string;
  amount: string | null;
  txHash: string;
  blockNumber: number;
  logIndex: number;
  timestamp: bigint;
  signer: string | null;
  action: string | null;
  detail: Record<string, unknown> | null;
}

export async function runEvents(deps: Pick<Deps, "pool" | "views">, run: RunRecord): Promise<RunEventRecord[]> {
  if (run.onchainRunId === null) return [];
  const r = await deps.pool.query<{
    kind: string;
    state: string;
    agent_id: string | null;
    actor: string;
    amount: string | null;
    tx_hash: string;
    block_number: string;
    log_index: number;
    timestamp: string;
    signer: string | null;
    action: string | null;
    detail: Record<string, unknown> | null;
  }>(
    `select e.kind, e.state, e.agent_id::text, e.actor, e.amount::text, e.tx_hash, e.block_number::text, e.log_index,
            e.timestamp::text, ra.signer, ra.action, ra.detail
       from ${deps.views.names.runEvent} e
       left join lateral (
         select signer, action, detail from api.run_action
          where run_id = $2 and tx_hash = e.tx_hash order by id limit 1
       ) ra on true
      where e.run_id = $1
      order by e.block_number, e.log_index`,
    [run.onchainRunId.toString(), run.id],
  );
  return r.rows.map((row) => ({
    kind: row.kind,
    contractState: row.state,
    agentId: num(row.agent_id),
    sender: row.actor,
    amount: row.amount,
    txHash: row.tx_hash,
    blockNumber: Number(row.block_number),
    logIndex: row.log_index,
    timestamp: BigInt(row.timestamp),
    signer: row.signer,
    action: row.action,
    detail: row.detail,
  }));
}

/** The next run id (drafts get theirs before the request document that names it is stored). */
export async function nextRunId(deps: Pick<Deps, "db">): Promise<number> {
  const r = await deps.db.execute<{ id: string }>(sql`select nextval('api.run_id_seq')::text id`);
  return Number(r.rows[0]!.id);
}

export interface DraftRow {
  id: number;
  poster: string;
  title: string;
  description: string;
  reward: bigint;
  deadline: bigint;
  maxRevisions: number;
  requestCid: string;
  /** Agreed damages the draft declares (none when absent: subscription runs, drafts without a cover). */
  declaredCoverage?: bigint | null;
  createdAt: Date;
}

export async function insertDraft(deps: Pick<Deps, "db">, d: DraftRow): Promise<void> {
  await deps.db.insert(runTable).values({
    id: d.id,
    posterAddress: d.poster,
    title: d.title,
    description: d.description,
    reward: d.reward.toString(),
    deadline: Number(d.deadline),
    maxRevisions: d.maxRevisions,
    requestCid: d.requestCid,
    declaredCoverage: d.declaredCoverage?.toString() ?? null,
    createdAt: d.createdAt,
  });
}

/**
 * Links draft `id` to its escrow run inside the caller's transaction: "already-funded" when it was funded
 * meanwhile, "tx-used" when the funding transaction already funds another run (api.used_tx) or the escrow run is
 * linked to another draft (a unique index).
 */
export async function markFunded(
  db: Queryable,
  id: number,
  onchainRunId: bigint,
  txHash: string,
): Promise<"funded" | "already-funded" | "tx-used"> {
  try {
    const updated = await createDb(db)
      .update(runTable)
      .set({ onchainRunId: onchainRunId.toString(), fundingTx: txHash.toLowerCase(), fundedAt: sql`now()` })
      .where(and(eq(runTable.id, id), isNull(runTable.onchainRunId)))
      .returning({ id: runTable.id });
    if (updated.length !== 1) return "already-funded";
  } catch (error) {
    if (isUniqueViolation(error)) return "tx-used";
    throw error;
  }
  return (await recordTxUse(db, { txHash, purpose: "run-funding", subject: id })) ? "funded" : "tx-used";
}

export interface RunActionEntry {
  runId: number;
  action: string;
  signer: string | null;
  agentId?: number | null;
  txHash: string | null;
  detail?: Record<string, unknown>;
}

/** Records who asked for a step of run `runId` (api.run_action). */
export async function recordAction(deps: Pick<Deps, "db">, entry: RunActionEntry): Promise<void> {
  await deps.db.insert(runAction).values({
    runId: entry.runId,
    action: entry.action,
    signer: entry.signer,
    agentId: entry.agentId ?? null,
    txHash: entry.txHash?.toLowerCase() ?? null,
    detail: entry.detail ?? {},
  });
}

/** Whether agent `agentId` ever acted on run `runId` (API id). */
export async function agentActedOnRun(deps: Pick<Deps, "db">, runId: number, agentId: number): Promise<boolean> {
  const rows = await deps.db
    .select({ one: sql<number>`1` })
    .from(runAction)
    .where(and(eq(runAction.runId, runId), eq(runAction.agentId, agentId)))
    .limit(1);
  return rows.length > 0;
}

/** How many RunEscrow and StakeVault events of transaction `hash` the indexer has. */
export async function indexedTxEvents(
  deps: Pick<Deps, "pool" | "views">,
  hash: string,
): Promise<{ runs: number; stakes: number }> {
  const schema = deps.views.names;
  const r = await deps.pool.query<{ runs: number; stakes: number }>(
    `select (select count(*)::int from ${schema.runEvent} where tx_hash = $1) runs,
            (select count(*)::int from ${schema.stakeEvent} where tx_hash = $1) stakes`,
    [hash.toLowerCase()],
  );
  return r.rows[0]!;
}

/** A lease is longer than any request may hold it (receipt + indexer wait); waiting for one is bounded. */
const LOCK_LEASE_SECONDS = 120;
const LOCK_WAIT_MS = 60_000;

/**
 * Runs `fn` while holding run `id`'s lease (api.run_lock). Requests on one run are serialized across API
 * processes without holding a pooled connection; a crashed holder's lease expires. Raw SQL: an upsert that only
 * takes an expired lease.
 */
export async function withRunLock<T>(deps: Pick<Deps, "pool">, id: number, fn: () => Promise<T>): Promise<T> {
  const holder = randomUUID();
  const deadline = Date.now() + LOCK_WAIT_MS;
  let delay = 20;
  while (true) {
    const got = await deps.pool.query(
      `insert into api.run_lock (run_id, holder, expires_at) values ($1, $2, now() + make_interval(secs => $3))
       on conflict (run_id) do update set holder = excluded.holder, expires_at = excluded.expires_at
         where api.run_lock.expires_at < now()
       returning holder`,
      [id, holder, LOCK_LEASE_SECONDS],
    );
    if (got.rowCount === 1) break;
    if (Date.now() > deadline) throw apiError("RUN_BUSY", `run ${id} is busy with another request; retry`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 200);
  }
  try {
    return await fn();
  } finally {
    await deps.pool.query("delete from api.run_lock where run_id = $1 and holder = $2", [id, holder]);
  }
}

/** A position in the indexed run events (block number, log index). */
export interface RunEventCursor {
  block: string;
  logIndex: number;
}

/** The position of the latest indexed run event (block 0 before any). */
export async function latestRunEvent(deps: Pick<Deps, "pool" | "views">): Promise<RunEventCursor> {
  const last = await deps.pool.query<{ block: string | null; log_index: number | null }>(
    `select block_number::text block, log_index from ${deps.views.names.runEvent}
      order by block_number desc, log_index desc limit 1`,
  );
  return { block: last.rows[0]?.block ?? "0", logIndex: last.rows[0]?.log_index ?? -1 };
}

export interface BountyRunEvent {
  run_id: string;
  kind: "CLAIMED" | "COMPLETED" | "DISPUTE_RESOLVED_FOR_AGENT";
  agent_id: string | null;
  tx_hash: string;
  block_number: string;
  log_index: number;
  reward: string;
}

/** Claims and completions of API runs indexed after `cursor`, oldest first (at most `limit`). */
export async function bountyRunEventsAfter(
  deps: Pick<Deps, "pool" | "views">,
  cursor: RunEventCursor,
  limit: number,
): Promise<BountyRunEvent[]> {
  const schema = deps.views.names;
  const { rows } = await deps.pool.query<BountyRunEvent>(
    `select r.id::text run_id, e.kind, e.agent_id::text, lower(e.tx_hash) tx_hash, e.block_number::text,
            e.log_index, cr.reward::text
       from ${schema.runEvent} e
       join api.run r on r.onchain_run_id = e.run_id
       join ${schema.run} cr on cr.id = e.run_id
      where e.kind in ('CLAIMED', 'COMPLETED', 'DISPUTE_RESOLVED_FOR_AGENT')
        and (e.block_number, e.log_index) > ($1::numeric, $2::int)
      order by e.block_number, e.log_index
      limit $3`,
    [cursor.block, cursor.logIndex, limit],
  );
  return rows;
}
