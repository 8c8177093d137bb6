// Which mint transaction a registration's wallet went out in (api.agent_wallet: mint_key, mint_position), and who
// may still send it (mint_lease, mint_lease_until).
import type pg from "pg";

/** Position of a wallet sent alone with `mint` (rows from before batching). */
export const SINGLE_MINT = -1;

export interface MintRecord {
  key: string;
  position: number;
}

export interface BatchEntry {
  wallet: string;
  uri: string;
  /** The lease the request attempt holds on the wallet's mint. */
  lease: string;
}

/**
 * Records the batch each wallet goes out in, before it is sent: only wallets whose lease the caller still holds
 * (and that are in no batch yet); answers those wallets.
 */
export async function recordBatch(pool: pg.Pool, key: string, entries: readonly BatchEntry[]): Promise<Set<string>> {
  const { rows } = await pool.query<{ wallet_address: string }>(
    `update api.agent_wallet w set mint_key = $1, mint_position = b.position - 1
       from unnest($2::text[], $3::uuid[]) with ordinality as b(wallet, lease, position)
      where w.wallet_address = b.wallet and w.mint_lease = b.lease and w.mint_key is null
      returning w.wallet_address`,
    [key, entries.map((e) => e.wallet), entries.map((e) => e.lease)],
  );
  return new Set(rows.map((r) => r.wallet_address));
}

export type MintState =
  | { kind: "sent"; record: MintRecord }
  | { kind: "leased"; until: Date }
  | { kind: "free" }
  | { kind: "gone" };

export async function mintStateOf(pool: pg.Pool, wallet: string): Promise<MintState> {
  const { rows } = await pool.query<{
    mint_key: string | null;
    mint_position: number | null;
    mint_lease_until: Date | null;
    live: boolean;
  }>(
    `select mint_key, mint_position, mint_lease_until, coalesce(mint_lease_until > now(), false) as live
       from api.agent_wallet where wallet_address = $1`,
    [wallet],
  );
  const row = rows[0];
  if (!row) return { kind: "gone" };
  if (row.mint_key !== null && row.mint_position !== null) {
    return { kind: "sent", record: { key: row.mint_key, position: row.mint_position } };
  }
  return row.live ? { kind: "leased", until: row.mint_lease_until! } : { kind: "free" };
}

/** Takes over the mint of a wallet in no batch whose lease has expired; the new lease, or undefined if not free. */
export async function takeMintLease(pool: pg.Pool, wallet: string, seconds: number): Promise<string | undefined> {
  const { rows } = await pool.query<{ mint_lease: string }>(
    `update api.agent_wallet set mint_lease = gen_random_uuid(), mint_lease_until = now() + make_interval(secs => $2)
      where wallet_address = $1 and mint_key is null and agent_id is null
        and (mint_lease_until is null or mint_lease_until <= now())
      returning mint_lease`,
    [wallet, seconds],
  );
  return rows[0]?.mint_lease;
}

/** The batch as it was sent (same order), to resend it under the same key. */
export async function batchEntries(pool: pg.Pool, key: string): Promise<Omit<BatchEntry, "lease">[]> {
  const { rows } = await pool.query<{ wallet_address: string; mint_uri: string }>(
    "select wallet_address, mint_uri from api.agent_wallet where mint_key = $1 order by mint_position",
    [key],
  );
  return rows.map((r) => ({ wallet: r.wallet_address, uri: r.mint_uri }));
}
