// Domain, stake and skill verifications (api.verification) and the skill tests drawn per attempt (api.skill_attempt).
// Times are chain time.
import type pg from "pg";
import type { Deps } from "../context.ts";
import { isoFromSeconds } from "../lib/time.ts";

type Q = Pick<pg.Pool, "query">;

export type VerificationType = "domain" | "stake" | "skill";
export type VerificationStatus = "PENDING" | "VERIFIED" | "FAILED" | "EXPIRED";

export interface VerificationRow {
  id: string;
  agent_id: string;
  type: VerificationType;
  status: VerificationStatus;
  domain: string | null;
  token: string | null;
  min_stake_amount: string | null;
  actual_balance: string | null;
  skill_name: string | null;
  score: number | null;
  badge: string | null;
  message: string | null;
  created_at: Date;
  verified_at: Date | null;
  expires_at: Date | null;
  last_checked_at: Date | null;
}

const COLUMNS = `id::text, agent_id::text, type, status, domain, token, min_stake_amount::text,
  actual_balance::text, skill_name, score, badge, message, created_at, verified_at, expires_at, last_checked_at`;

export async function findVerification(
  db: Pick<pg.Pool, "query">,
  id: number,
  forUpdate = false,
): Promise<VerificationRow | undefined> {
  const r = await db.query<VerificationRow>(
    `select ${COLUMNS} from api.verification where id = $1${forUpdate ? " for update" : ""}`,
    [id],
  );
  return r.rows[0];
}

export async function agentFacts(
  deps: Deps,
  agentId: number,
): Promise<{ wallet: `0x${string}`; owner: `0x${string}`; registeredAt: bigint } | undefined> {
  const r = await deps.pool.query<{ wallet: `0x${string}`; owner: `0x${string}`; registered_at: string }>(
    `select wallet, owner, registered_at::text from ${deps.views.names.agent} where id = $1`,
    [agentId],
  );
  const row = r.rows[0];
  return row ? { wallet: row.wallet, owner: row.owner, registeredAt: BigInt(row.registered_at) } : undefined;
}

/** Whether `domain` backs a badge that has not expired at `now`. */
export async function domainVerifiedElsewhere(db: Q, domain: string, now: bigint, exceptId?: number) {
  if (exceptId === undefined) {
    const taken = await db.query(
      `select 1 from api.verification
        where type = 'domain' and domain = $1 and status = 'VERIFIED' and expires_at > $2::timestamptz limit 1`,
      [domain, isoFromSeconds(now)],
    );
    return (taken.rowCount ?? 0) > 0;
  }
  // A lapsed badge of another agent no longer holds the domain.
  await db.query(
    `update api.verification set status = 'EXPIRED'
      where type = 'domain' and domain = $1 and status = 'VERIFIED' and expires_at <= $2::timestamptz`,
    [domain, isoFromSeconds(now)],
  );
  const other = await db.query(
    "select id from api.verification where type = 'domain' and domain = $1 and status = 'VERIFIED' and id <> $2",
    [domain, exceptId],
  );
  return (other.rowCount ?? 0) > 0;
}

/** A PENDING request (domain with its DNS token, or stake with its minimum) open until `expiresAt`. */
export async function insertRequest(
  db: Q,
  r: {
    agentId: number;
    type: "domain" | "stake";
    domain?: string;
    token?: string;
    minStake?: string;
    now: bigint;
    expiresAt: bigint;
  },
): Promise<VerificationRow> {
  const { rows } = await db.query<VerificationRow>(
    `insert into api.verification (agent_id, type, status, domain, token, min_stake_amount, created_at, expires_at)
     values ($1, $2, 'PENDING', $3, $4, $5::numeric, $6::timestamptz, $7::timestamptz) returning ${COLUMNS}`,
    [
      r.agentId,
      r.type,
      r.domain ?? null,
      r.token ?? null,
      r.minStake ?? null,
      isoFromSeconds(r.now),
      isoFromSeconds(r.expiresAt),
    ],
  );
  return rows[0]!;
}

export async function markChecked(db: Q, id: number, now: bigint): Promise<void> {
  await db.query("update api.verification set last_checked_at = $2::timestamptz where id = $1", [
    id,
    isoFromSeconds(now),
  ]);
}

/**
 * Marks a PENDING request VERIFIED with its badge until `expiresAt`, or renews a VERIFIED one last verified at
 * least a day ago (a renewal sooner changes nothing: the badge, its validity and its event stay as they are, so
 * repeated checks cannot flood an organization's webhook). `granted` says whether this call granted or renewed;
 * undefined when the request is no longer open, "DOMAIN_TAKEN" when another agent's badge holds the domain.
 */
export async function markVerified(
  db: Q,
  id: number,
  v: { badge: string; now: bigint; expiresAt: Date; actualBalance?: bigint },
): Promise<{ row: VerificationRow; granted: boolean } | "DOMAIN_TAKEN" | undefined> {
  try {
    const r = await db.query<VerificationRow>(
      `update api.verification set status = 'VERIFIED', badge = $2, verified_at = $3::timestamptz,
              expires_at = $4::timestamptz, actual_balance = coalesce($5::numeric, actual_balance)
        where id = $1
          and (status = 'PENDING' or (status = 'VERIFIED' and verified_at <= $3::timestamptz - interval '1 day'))
        returning ${COLUMNS}`,
      [id, v.badge, isoFromSeconds(v.now), v.expiresAt.toISOString(), v.actualBalance?.toString() ?? null],
    );
    if (r.rows[0]) return { row: r.rows[0], granted: true };
  } catch (err) {
    if ((err as { code?: string }).code === "23505") return "DOMAIN_TAKEN";
    throw err;
  }
  // Not updated: renewed within the last day (by this check's twin, perhaps), or no longer open. Read it afresh.
  const current = await findVerification(db, id);
  return current?.status === "VERIFIED" ? { row: current, granted: false } : undefined;
}

/** Stores a drawn skill test, answerable until `ttlSeconds` from now; returns its expiry. */
export async function insertSkillAttempt(
  db: Q,
  a: { id: string; agentId: number; skill: string; questions: unknown; ttlSeconds: number },
): Promise<Date> {
  const { rows } = await db.query<{ expires_at: Date }>(
    `insert into api.skill_attempt (id, agent_id, skill_name, questions, expires_at)
     values ($1, $2, $3, $4::jsonb, now() + make_interval(secs => $5)) returning expires_at`,
    [a.id, a.agentId, a.skill, JSON.stringify(a.questions), a.ttlSeconds],
  );
  return rows[0]!.expires_at;
}

/** One attempt at a time per (agent, skill) until the transaction ends. */
export async function lockSkill(tx: pg.PoolClient, agentId: number, skill: string): Promise<void> {
  await tx.query("select pg_advisory_xact_lock(hashtext($1))", [`skill:${agentId}:${skill}`]);
}

/** Spends the attempt (unknown, foreign, used or expired: undefined) and returns its questions. */
export async function spendSkillAttempt<T>(tx: pg.PoolClient, attemptId: string, agentId: number, skill: string) {
  const attempt = await tx.query<{ questions: T }>(
    `update api.skill_attempt set used_at = now()
      where id = $1 and agent_id = $2 and skill_name = $3 and used_at is null and expires_at > now()
      returning questions`,
    [attemptId, agentId, skill],
  );
  return attempt.rows[0]?.questions;
}

/** When the agent last took the skill test. */
export async function lastSkillTest(tx: Q, agentId: number, skill: string): Promise<Date | undefined> {
  const last = await tx.query<{ created_at: Date }>(
    `select created_at from api.verification
      where type = 'skill' and agent_id = $1 and skill_name = $2 order by created_at desc limit 1`,
    [agentId, skill],
  );
  return last.rows[0]?.created_at;
}

/** The agent's best skill score that is verified and not expired at `now`. */
export async function bestVerifiedSkillScore(tx: Q, agentId: number, skill: string, now: bigint) {
  const best = await tx.query<{ best: number | null }>(
    `select max(score) best from api.verification
      where type = 'skill' and agent_id = $1 and skill_name = $2 and status = 'VERIFIED' and expires_at > $3::timestamptz`,
    [agentId, skill, isoFromSeconds(now)],
  );
  return best.rows[0]?.best ?? null;
}

export async function insertSkillResult(
  tx: Q,
  r: {
    agentId: number;
    skill: string;
    passed: boolean;
    score: number;
    answers: unknown;
    badge: string | null;
    message: string | null;
    now: bigint;
    expiresAt: Date | null;
  },
): Promise<VerificationRow> {
  const { rows } = await tx.query<VerificationRow>(
    `insert into api.verification
       (agent_id, type, status, skill_name, score, answers, badge, message, created_at, verified_at, expires_at)
     values ($1, 'skill', $2, $3, $4, $5::jsonb, $6, $7, $8::timestamptz, $9::timestamptz, $10::timestamptz)
     returning ${COLUMNS}`,
    [
      r.agentId,
      r.passed ? "VERIFIED" : "FAILED",
      r.skill,
      r.score,
      JSON.stringify(r.answers),
      r.badge,
      r.message,
      isoFromSeconds(r.now),
      r.passed ? isoFromSeconds(r.now) : null,
      r.expiresAt?.toISOString() ?? null,
    ],
  );
  return rows[0]!;
}

/** The agent's latest 500 verifications, newest first. */
export async function verificationsOf(db: Q, agentId: number): Promise<VerificationRow[]> {
  const { rows } = await db.query<VerificationRow>(
    `select ${COLUMNS} from api.verification v where v.agent_id = $1 order by v.id desc limit 500`,
    [agentId],
  );
  return rows;
}

/**
 * VERIFIED past expiresAt -> EXPIRED (and stale PENDING challenges too), and stake badges whose locked stake fell
 * below their minimum. Returns how many expired and the agents that lost a VERIFIED badge.
 */
export async function expireDue(
  deps: Pick<Deps, "pool" | "views">,
  at: Date,
): Promise<{ expired: number; agentIds: number[] }> {
  const { rows } = await deps.pool.query<{ agent_id: string; was: string }>(
    `update api.verification v set status = 'EXPIRED'
       from (select id, status was from api.verification
              where status in ('VERIFIED', 'PENDING') and expires_at <= $1::timestamptz for update skip locked) e
      where v.id = e.id
      returning v.agent_id::text, e.was`,
    [at.toISOString()],
  );
  const lapsed = await deps.pool.query<{ agent_id: string }>(
    `update api.verification v set status = 'EXPIRED', message = 'the locked stake fell below the minimum'
       from api.verification x left join ${deps.views.names.stake} s on s.agent_id = x.agent_id
      where v.id = x.id and x.type = 'stake' and x.status = 'VERIFIED'
        and coalesce(s.amount - s.pending_withdrawal, 0) < x.min_stake_amount
      returning v.agent_id::text`,
  );
  const agentIds = [
    ...new Set([
      ...rows.filter((r) => r.was === "VERIFIED").map((r) => Number(r.agent_id)),
      ...lapsed.rows.map((r) => Number(r.agent_id)),
    ]),
  ];
  return { expired: rows.length + lapsed.rows.length, agentIds };
}
