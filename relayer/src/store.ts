// Durable record of every transaction the relayer signs, so none is lost or sent twice for one idempotency key.
import { runMigrations } from "@agenthub/common/migrate";
import type pg from "pg";
import type { Fees } from "./fees.ts";

export type TxStatus = "PENDING" | "SENT" | "SUCCESS" | "REVERTED" | "FAILED";

export interface TxRow {
  id: string;
  idempotency_key: string | null;
  signer: string | null;
  target: string;
  function_name: string;
  to_address: string | null;
  value: string;
  data: string;
  tx_hash: string | null;
  nonce: string | null;
  gas: string | null;
  status: TxStatus;
  error: string | null;
  replacements: number;
}

/** One signed version of a transaction (the first send or a fee-bumped replacement at the same nonce). */
export interface Attempt extends Fees {
  hash: string;
  sentBlock: bigint;
  sentAt: Date;
}

export interface InFlightRow extends TxRow {
  attempts: Attempt[];
}

const migrationsDir = new URL("../migrations", import.meta.url).pathname;

export class TxStore {
  constructor(private readonly pool: pg.Pool) {}

  migrate(): Promise<string[]> {
    return runMigrations(this.pool, { schema: "relayer", dir: migrationsDir });
  }

  /** Inserts a new row, or returns the existing one for the same idempotency key. */
  async begin(tx: {
    key?: string;
    signer: string;
    target: string;
    functionName: string;
    to: string;
    value?: bigint;
    data: string;
  }): Promise<{ row: TxRow; created: boolean }> {
    const inserted = await this.pool.query<TxRow>(
      `insert into relayer.tx (idempotency_key, signer, target, function_name, to_address, value, data, status)
       values ($1, $2, $3, $4, $5, $6, $7, 'PENDING') on conflict (idempotency_key) do nothing returning *`,
      [tx.key ?? null, tx.signer, tx.target, tx.functionName, tx.to, (tx.value ?? 0n).toString(), tx.data],
    );
    if (inserted.rows[0]) return { row: inserted.rows[0], created: true };
    const existing = await this.pool.query<TxRow>("select * from relayer.tx where idempotency_key = $1", [tx.key]);
    return { row: existing.rows[0]!, created: false };
  }

  /** Takes over a row that never reached the network (FAILED before sending, or PENDING after a crash). */
  async retry(id: string, signer: string): Promise<void> {
    await this.pool.query(
      `update relayer.tx set status = 'PENDING', error = null, tx_hash = null, nonce = null, signer = $2,
         updated_at = now() where id = $1`,
      [id, signer],
    );
  }

  async get(id: string): Promise<TxRow | undefined> {
    return (await this.pool.query<TxRow>("select * from relayer.tx where id = $1", [id])).rows[0];
  }

  /** Records a signed version before it is broadcast (so a crash cannot leave an unknown transaction out there). */
  async attempt(id: string, nonce: number, gas: bigint, attempt: Attempt, replacement: boolean): Promise<void> {
    await this.pool.query(
      `with a as (
         insert into relayer.tx_attempt (hash, tx_id, max_fee_per_gas, max_priority_fee_per_gas, sent_block, sent_at)
         values ($2, $1, $5, $6, $7, $8)
       )
       update relayer.tx set status = 'SENT', tx_hash = $2, nonce = $3, gas = $4,
         replacements = replacements + $9, updated_at = now() where id = $1`,
      [
        id,
        attempt.hash,
        nonce,
        gas.toString(),
        attempt.maxFeePerGas.toString(),
        attempt.maxPriorityFeePerGas.toString(),
        attempt.sentBlock.toString(),
        attempt.sentAt,
        replacement ? 1 : 0,
      ],
    );
  }

  /** Forgets a version the node refused outright (it can never be mined). */
  async forgetAttempt(hash: string): Promise<void> {
    await this.pool.query("delete from relayer.tx_attempt where hash = $1", [hash]);
  }

  async finish(
    id: string,
    status: Exclude<TxStatus, "PENDING" | "SENT">,
    extra: { error?: string; txHash?: string; blockNumber?: bigint; gasUsed?: bigint } = {},
  ): Promise<void> {
    await this.pool.query(
      `update relayer.tx set status = $2, error = $3, block_number = $4, gas_used = $5,
         tx_hash = coalesce($6, tx_hash), updated_at = now() where id = $1`,
      [
        id,
        status,
        extra.error ?? null,
        extra.blockNumber?.toString() ?? null,
        extra.gasUsed?.toString() ?? null,
        extra.txHash ?? null,
      ],
    );
  }

  /** This signer's transactions that were sent and not yet seen mined, with every signed version, by nonce. */
  async inFlight(signer: string): Promise<InFlightRow[]> {
    const rows = await this.pool.query<
      TxRow & {
        attempts: { hash: string; max_fee: string; max_tip: string; sent_block: string; sent_at: string }[] | null;
      }
    >(
      `select t.*, (select json_agg(json_build_object('hash', a.hash, 'max_fee', a.max_fee_per_gas::text,
                 'max_tip', a.max_priority_fee_per_gas::text, 'sent_block', a.sent_block::text, 'sent_at', a.sent_at)
                 order by a.sent_at) from relayer.tx_attempt a where a.tx_id = t.id) as attempts
       from relayer.tx t where t.status = 'SENT' and t.signer = $1 order by t.nonce`,
      [signer],
    );
    return rows.rows.map(({ attempts, ...row }) => ({
      ...row,
      attempts: (attempts ?? []).map((a) => ({
        hash: a.hash,
        maxFeePerGas: BigInt(a.max_fee),
        maxPriorityFeePerGas: BigInt(a.max_tip),
        sentBlock: BigInt(a.sent_block),
        sentAt: new Date(a.sent_at),
      })),
    }));
  }

  /** Sent rows of other (or unknown, pre-migration) signers: this relayer only watches those, never replaces. */
  async foreignInFlight(signer: string): Promise<number> {
    const r = await this.pool.query<{ n: number }>(
      "select count(*)::int as n from relayer.tx where status = 'SENT' and signer is distinct from $1",
      [signer],
    );
    return r.rows[0]?.n ?? 0;
  }
}
