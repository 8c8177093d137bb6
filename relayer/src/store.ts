// Durable record of every transaction the relayer signs, so none is lost or sent twice for one idempotency key.
import type pg from "pg";

export type TxStatus = "PENDING" | "SENT" | "SUCCESS" | "REVERTED" | "FAILED";

export interface TxRow {
  id: string;
  idempotency_key: string | null;
  target: string;
  function_name: string;
  data: string;
  tx_hash: string | null;
  status: TxStatus;
  error: string | null;
}

export const RELAYER_SCHEMA_SQL = `
create schema if not exists relayer;
create table if not exists relayer.tx (
  id bigserial primary key,
  idempotency_key text unique,
  target text not null,
  function_name text not null,
  data text not null,
  tx_hash text,
  nonce bigint,
  status text not null,
  error text,
  block_number bigint,
  gas_used bigint,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists tx_status_idx on relayer.tx (status) where status in ('PENDING', 'SENT');
`;

export class TxStore {
  constructor(private readonly pool: pg.Pool) {}

  async migrate(): Promise<void> {
    // Two relayers starting at once must not race on DDL.
    const client = await this.pool.connect();
    try {
      await client.query("select pg_advisory_lock(hashtext('agenthub.relayer.migrate'))");
      await client.query(RELAYER_SCHEMA_SQL);
    } finally {
      await client.query("select pg_advisory_unlock(hashtext('agenthub.relayer.migrate'))").catch(() => {});
      client.release();
    }
  }

  /** Inserts a new row, or returns the existing one for the same idempotency key. */
  async begin(
    key: string | undefined,
    target: string,
    functionName: string,
    data: string,
  ): Promise<{ row: TxRow; created: boolean }> {
    const inserted = await this.pool.query<TxRow>(
      `insert into relayer.tx (idempotency_key, target, function_name, data, status)
       values ($1, $2, $3, $4, 'PENDING') on conflict (idempotency_key) do nothing returning *`,
      [key ?? null, target, functionName, data],
    );
    if (inserted.rows[0]) return { row: inserted.rows[0], created: true };
    const existing = await this.pool.query<TxRow>("select * from relayer.tx where idempotency_key = $1", [key]);
    return { row: existing.rows[0]!, created: false };
  }

  async retry(id: string): Promise<void> {
    await this.pool.query(
      "update relayer.tx set status = 'PENDING', error = null, tx_hash = null, updated_at = now() where id = $1",
      [id],
    );
  }

  async get(id: string): Promise<TxRow | undefined> {
    return (await this.pool.query<TxRow>("select * from relayer.tx where id = $1", [id])).rows[0];
  }

  async sent(id: string, hash: string, nonce: number): Promise<void> {
    await this.pool.query(
      "update relayer.tx set status = 'SENT', tx_hash = $2, nonce = $3, updated_at = now() where id = $1",
      [id, hash, nonce],
    );
  }

  async finish(
    id: string,
    status: Exclude<TxStatus, "PENDING" | "SENT">,
    extra: { error?: string; blockNumber?: bigint; gasUsed?: bigint } = {},
  ): Promise<void> {
    await this.pool.query(
      `update relayer.tx set status = $2, error = $3, block_number = $4, gas_used = $5, updated_at = now() where id = $1`,
      [id, status, extra.error ?? null, extra.blockNumber?.toString() ?? null, extra.gasUsed?.toString() ?? null],
    );
  }

  async unfinished(): Promise<TxRow[]> {
    return (await this.pool.query<TxRow>("select * from relayer.tx where status = 'SENT' order by id")).rows;
  }
}
