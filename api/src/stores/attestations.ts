// Attestations (api.attestation): paid peer reviews, one per (attestor, subject, category).
import type { Deps } from "../context.ts";
import type { AttestationCategory } from "../domain/reputation.ts";
import { isoFromSeconds } from "../lib/time.ts";

type StoreDeps = Pick<Deps, "pool" | "views">;

export interface AttestationRow {
  id: string;
  attestor_id: string;
  subject_id: string;
  category: AttestationCategory;
  rating: number;
  comment: string | null;
  weight: number;
  attestor_score: number;
  created_at: Date;
}
const COLUMNS = `t.id::text, t.attestor_id::text, t.subject_id::text, t.category, t.rating, t.comment, t.weight,
  t.attestor_score, t.created_at`;

/** The parties of an attestation as the rules need them: who controls the agent, and its current score. */
export async function attestationParty(deps: StoreDeps, agent: number) {
  const r = await deps.pool.query<{ wallet: string; owner: string; walletBound: boolean; score: number | null }>(
    `select a.wallet, a.owner, a.wallet_bound "walletBound", r.score from ${deps.views.names.agent} a
       left join api.reputation r on r.agent_id = a.id where a.id = $1`,
    [agent],
  );
  return r.rows[0];
}

/** Deletes what an unsettled payment bought; returns the subjects whose reputation changes. */
export async function deleteBoughtWith(deps: Pick<Deps, "pool">, payer: string, nonce: string): Promise<number[]> {
  const { rows } = await deps.pool.query<{ subject_id: string }>(
    "delete from api.attestation where payer = $1 and payment_nonce = $2 returning subject_id::text",
    [payer, nonce],
  );
  return rows.map((r) => Number(r.subject_id));
}

/** The attestation this payment already bought (a retried request, e.g. after 504 PAYMENT_PENDING). */
export async function findBoughtWith(
  deps: Pick<Deps, "pool">,
  payer: string,
  nonce: string,
): Promise<AttestationRow | undefined> {
  const { rows } = await deps.pool.query<AttestationRow>(
    `select ${COLUMNS} from api.attestation t where t.payer = $1 and t.payment_nonce = $2`,
    [payer, nonce],
  );
  return rows[0];
}

export interface NewAttestation {
  attestorId: number;
  subjectId: number;
  category: string;
  rating: number;
  comment: string | null;
  weight: number;
  attestorScore: number;
  payer: string;
  paymentNonce: string;
  /** chain time, unix seconds */
  at: bigint;
}

/** Inserts the attestation; undefined when (attestor, subject, category) already has one. */
export async function insertAttestation(
  deps: Pick<Deps, "pool">,
  a: NewAttestation,
): Promise<AttestationRow | undefined> {
  try {
    const r = await deps.pool.query<AttestationRow>(
      `insert into api.attestation as t
         (attestor_id, subject_id, category, rating, comment, weight, attestor_score, payer, payment_nonce, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::timestamptz)
       returning ${COLUMNS}`,
      [
        a.attestorId,
        a.subjectId,
        a.category,
        a.rating,
        a.comment,
        a.weight,
        a.attestorScore,
        a.payer,
        a.paymentNonce,
        isoFromSeconds(a.at),
      ],
    );
    return r.rows[0]!;
  } catch (err) {
    if ((err as { code?: string }).code === "23505") return undefined;
    throw err;
  }
}

export interface CategoryStat {
  category: string | null;
  n: number;
  avg: number | null;
  wsum: number | null;
  w: number | null;
}

/** Received attestations per category (and the total, category null), and how many the agent gave. */
export async function attestationTotals(
  deps: Pick<Deps, "pool">,
  agent: number,
): Promise<{ received: CategoryStat[]; given: number }> {
  const [received, given] = await Promise.all([
    deps.pool.query<CategoryStat>(
      `select category, count(*)::int n, avg(rating)::float8 avg, sum(rating * weight)::float8 wsum,
              sum(weight)::float8 w
         from api.attestation where subject_id = $1 group by rollup (category)`,
      [agent],
    ),
    deps.pool.query<{ n: number }>("select count(*)::int n from api.attestation where attestor_id = $1", [agent]),
  ]);
  return { received: received.rows, given: given.rows[0]!.n };
}

/** The latest 500 attestations the agent received (with each attestor's wallet and score) and gave. */
export async function attestationsOf(deps: StoreDeps, agent: number) {
  const s = deps.views.names;
  const [received, given] = await Promise.all([
    deps.pool.query<AttestationRow & { wallet: string; score: number | null }>(
      `select ${COLUMNS}, a.wallet, r.score from api.attestation t
         join ${s.agent} a on a.id = t.attestor_id
         left join api.reputation r on r.agent_id = t.attestor_id
        where t.subject_id = $1 order by t.id desc limit 500`,
      [agent],
    ),
    deps.pool.query<AttestationRow & { wallet: string }>(
      `select ${COLUMNS}, a.wallet from api.attestation t
         join ${s.agent} a on a.id = t.subject_id
        where t.attestor_id = $1 order by t.id desc limit 500`,
      [agent],
    ),
  ]);
  return { received: received.rows, given: given.rows };
}

/** One attestation with both parties' wallets and the attestor's current score. */
export async function findAttestation(deps: StoreDeps, id: number) {
  const s = deps.views.names;
  const { rows } = await deps.pool.query<
    AttestationRow & { attestor_wallet: string; subject_wallet: string; attestor_current: number | null }
  >(
    `select ${COLUMNS}, aa.wallet attestor_wallet, sa.wallet subject_wallet, r.score attestor_current
       from api.attestation t
       join ${s.agent} aa on aa.id = t.attestor_id
       join ${s.agent} sa on sa.id = t.subject_id
       left join api.reputation r on r.agent_id = t.attestor_id
      where t.id = $1`,
    [id],
  );
  return rows[0];
}
