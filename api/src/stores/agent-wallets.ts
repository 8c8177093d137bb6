// The wallets the service generated for agents (api.agent_wallet): the encrypted key until the claim, the claim
// code's hash and state, the mint. A row exists before the mint (agent_id null) so a crash loses nothing.
import type pg from "pg";
import type { Deps } from "../context.ts";
import { withTransaction } from "../db/transaction.ts";

type Q = Pick<pg.Pool, "query">;

export interface WalletRow {
  wallet_address: string;
  agent_id: string | null;
  claim_code_hash: string;
  encrypted_key: Buffer | null;
  claim_expires_at: Date;
  claim_state: string | null;
  claimed_by: string | null;
  key_redelivery_until: Date | null;
  metadata_cid: string | null;
}

/** A generated wallet waiting for its mint. */
export async function insertPendingWallet(
  tx: Q,
  w: {
    wallet: string;
    encryptedKey: Buffer;
    claimCodeHash: string;
    claimTtlDays: number;
    ip: string;
    orgId: string | null;
    mintUri: string;
    /** The registration attempt that holds the wallet's mint until `mintLeaseSeconds` from now. */
    mintLease: string;
    mintLeaseSeconds: number;
  },
): Promise<void> {
  await tx.query(
    `insert into api.agent_wallet
       (wallet_address, encrypted_key, claim_code_hash, claim_expires_at, registered_ip, org_id, mint_uri,
        mint_lease, mint_lease_until)
     values ($1, $2, $3, now() + make_interval(days => $4), $5, $6, $7, $8, now() + make_interval(secs => $9))`,
    [
      w.wallet,
      w.encryptedKey,
      w.claimCodeHash,
      w.claimTtlDays,
      w.ip,
      w.orgId,
      w.mintUri,
      w.mintLease,
      w.mintLeaseSeconds,
    ],
  );
}

/** Where the wallet's mint stands. */
export async function mintState(deps: Pick<Deps, "pool">, wallet: string) {
  const { rows } = await deps.pool.query<{ agent_id: string | null; mint_tx: string | null; mint_uri: string }>(
    "select agent_id, mint_tx, mint_uri from api.agent_wallet where wallet_address = $1",
    [wallet],
  );
  return rows[0];
}

/** Forgets a registration whose mint was refused for good (its idempotency record with it). */
export async function forgetUnmintedWallet(deps: Pick<Deps, "pool">, wallet: string, operation: string) {
  await withTransaction(deps.pool, async (tx) => {
    await tx.query("delete from api.idempotency_key where operation = $1 and resource = $2", [operation, wallet]);
    await tx.query("delete from api.agent_wallet where wallet_address = $1 and agent_id is null", [wallet]);
  });
}

/**
 * Binds the minted token to the wallet row (first writer wins): the row's organization (null for none) when this
 * call bound it, undefined when it was bound already.
 */
export async function bindMintedWallet(
  tx: Q,
  m: { wallet: string; agentId: number; txHash: string },
): Promise<{ orgId: string | null } | undefined> {
  const bound = await tx.query<{ org_id: string | null }>(
    `update api.agent_wallet set agent_id = $2, mint_tx = $3 where wallet_address = $1 and agent_id is null
     returning org_id`,
    [m.wallet, m.agentId, m.txHash],
  );
  return bound.rows[0] ? { orgId: bound.rows[0].org_id } : undefined;
}

/** Unbound wallets older than `olderThanSeconds` whose token the indexer already shows (at most 500). */
export async function orphanedMints(deps: Pick<Deps, "pool" | "views">, olderThanSeconds: number) {
  const { rows } = await deps.pool.query<{ wallet_address: string; mint_uri: string; id: string; tx: string }>(
    `select w.wallet_address, w.mint_uri, a.id::text, a.registered_tx as tx
       from api.agent_wallet w
       join ${deps.views.names.agent} a on a.wallet = lower(w.wallet_address)
      where w.agent_id is null and w.mint_uri is not null
        and w.created_at < now() - make_interval(secs => $1)
      order by w.created_at
      limit 500`,
    [olderThanSeconds],
  );
  return rows.map((r) => ({ wallet: r.wallet_address, mintUri: r.mint_uri, agentId: Number(r.id), txHash: r.tx }));
}

/** The minted wallet a claim code opens, with its profile's CID. */
export async function walletByClaimCodeHash(
  deps: Pick<Deps, "pool">,
  codeHash: string,
): Promise<WalletRow | undefined> {
  const r = await deps.pool.query<WalletRow>(
    `select w.*, p.metadata_cid from api.agent_wallet w left join api.agent_profile p on p.agent_id = w.agent_id
      where w.claim_code_hash = $1 and w.agent_id is not null`,
    [codeHash],
  );
  return r.rows[0];
}

/** Whether the service generated agent `agentId`'s wallet. */
export async function hasGeneratedWallet(deps: Pick<Deps, "pool">, agentId: number): Promise<boolean> {
  const exists = await deps.pool.query("select 1 from api.agent_wallet where agent_id = $1", [agentId]);
  return (exists.rowCount ?? 0) > 0;
}

/** Moves the open claim to CLAIMING for `claimant`; false when another request (or claimant) got there first. */
export async function startClaim(deps: Pick<Deps, "pool">, agentId: number, claimant: string): Promise<boolean> {
  const won = await deps.pool.query(
    `update api.agent_wallet set claim_state = 'CLAIMING', claimed_by = $2
      where agent_id = $1 and claim_state is null and encrypted_key is not null and claim_expires_at > now()`,
    [agentId, claimant],
  );
  return (won.rowCount ?? 0) > 0;
}

/** Reopens a CLAIMING claim of `claimant` whose transfer can never happen. */
export async function reopenClaim(deps: Pick<Deps, "pool">, wallet: string, claimant: string): Promise<void> {
  await deps.pool.query(
    `update api.agent_wallet set claim_state = null, claimed_by = null
      where wallet_address = $1 and claim_state = 'CLAIMING' and claimed_by = $2`,
    [wallet, claimant],
  );
}

/** Marks the claim done; the key stays for redelivery until the returned time (set once). */
export async function finishClaim(
  deps: Pick<Deps, "pool">,
  agentId: number,
  txHash: string,
  redeliverySeconds: number,
): Promise<Date> {
  const { rows } = await deps.pool.query<{ key_redelivery_until: Date }>(
    `update api.agent_wallet
        set claim_state = 'CLAIMED', claimed_at = coalesce(claimed_at, now()), claim_tx = $2,
            key_redelivery_until = coalesce(key_redelivery_until, now() + make_interval(secs => $3))
      where agent_id = $1 returning key_redelivery_until`,
    [agentId, txHash, redeliverySeconds],
  );
  return rows[0]!.key_redelivery_until;
}

/** How many wallets (minted or pending) an organization registered. */
export async function countOrgWallets(tx: Q, orgId: string): Promise<number> {
  const { rows } = await tx.query<{ n: number }>("select count(*)::int n from api.agent_wallet where org_id = $1", [
    orgId,
  ]);
  return rows[0]!.n;
}

/** Erases the keys of claimed wallets whose redelivery window has ended; returns how many. */
export async function eraseDeliveredKeys(deps: Pick<Deps, "pool">): Promise<number> {
  const erased = await deps.pool.query(
    `update api.agent_wallet set encrypted_key = null
      where encrypted_key is not null and claim_state = 'CLAIMED' and key_redelivery_until <= now()`,
  );
  return erased.rowCount ?? 0;
}
