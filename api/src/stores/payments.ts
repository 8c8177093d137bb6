// Postgres replay store: the primary key (scheme, payer, nonce) makes "served once" hold across every API process.
import type pg from "pg";
import type { Address, Hex } from "viem";
import type { PaymentScheme } from "../payments/types.ts";

export interface PaymentRow {
  scheme: PaymentScheme;
  payer: string;
  nonce: string;
  endpoint: string;
  status: "PENDING" | "SETTLING" | "COMPLETED" | "FAILED";
  delivered: boolean;
  tx_hash: string | null;
  payload: unknown;
  x402_version: number | null;
  updated_at: Date;
}

export interface NewPayment {
  payer: Address;
  nonce: string;
  recipient: Address;
  amount: bigint;
  endpoint: string;
}

/** How long a request may hold an x402 payment before another request may take it over (crash recovery). */
const LEASE_SECONDS = 120;

export class PaymentStore {
  constructor(private readonly pool: pg.Pool) {}

  /** Spec scheme: records the payment as COMPLETED; false when (payer, nonce) was already used. */
  async recordSpec(p: NewPayment): Promise<boolean> {
    // The hot path of every spec payment: a named statement, parsed and planned once per connection.
    const { rowCount } = await this.pool.query({
      name: "agenthub_payment_record_spec",
      text: `insert into api.payment (scheme, payer, nonce, recipient, amount, endpoint, status, delivered)
             values ('agenthub', $1, $2, $3, $4, $5, 'COMPLETED', true) on conflict do nothing`,
      values: [p.payer, p.nonce, p.recipient, p.amount.toString(), p.endpoint],
    });
    return rowCount === 1;
  }

  /** Spec scheme: forgets an accepted payment whose request failed, so the payer may present it again. */
  async releaseSpec(payer: Address, nonce: string): Promise<void> {
    await this.pool.query("delete from api.payment where scheme = 'agenthub' and payer = $1 and nonce = $2", [
      payer,
      nonce,
    ]);
  }

  /**
   * x402: takes the payment for this request. "new" = first sight; "resume" = an earlier request settled (or sent)
   * it but never delivered the response, and this request now holds it; "used" = served already or held by a
   * request in flight.
   */
  async claimX402(
    p: NewPayment & { asset: Address; x402Version: number; payload: unknown },
  ): Promise<{ state: "new" | "resume"; row?: PaymentRow } | { state: "used" }> {
    const inserted = await this.pool.query(
      `insert into api.payment (scheme, payer, nonce, recipient, amount, asset, endpoint, status, lease_until,
         x402_version, payload)
       values ('x402-exact', $1, $2, $3, $4, $5, $6, 'PENDING', now() + make_interval(secs => $7), $8, $9)
       on conflict do nothing`,
      [
        p.payer,
        p.nonce,
        p.recipient,
        p.amount.toString(),
        p.asset,
        p.endpoint,
        LEASE_SECONDS,
        p.x402Version,
        JSON.stringify(p.payload),
      ],
    );
    if (inserted.rowCount === 1) return { state: "new" };
    const resumed = await this.pool.query<PaymentRow>(
      `update api.payment set lease_until = now() + make_interval(secs => $3), updated_at = now()
       where scheme = 'x402-exact' and payer = $1 and nonce = $2 and not delivered and status <> 'FAILED'
         and (lease_until is null or lease_until < now())
       returning *`,
      [p.payer, p.nonce, LEASE_SECONDS],
    );
    if (resumed.rows[0]) return { state: "resume", row: resumed.rows[0] };
    return { state: "used" };
  }

  async get(scheme: PaymentScheme, payer: Address, nonce: string): Promise<PaymentRow | undefined> {
    const { rows } = await this.pool.query<PaymentRow>(
      "select * from api.payment where scheme = $1 and payer = $2 and nonce = $3",
      [scheme, payer, nonce],
    );
    return rows[0];
  }

  /** x402: the handler failed before any settlement; the authorization stays unused and may be presented again. */
  async releaseX402(payer: Address, nonce: string): Promise<void> {
    await this.pool.query(
      `delete from api.payment where scheme = 'x402-exact' and payer = $1 and nonce = $2 and status = 'PENDING'
         and tx_hash is null`,
      [payer, nonce],
    );
    // A resumed (already settled or sent) payment just gives its lease back.
    await this.pool.query(
      "update api.payment set lease_until = null, updated_at = now() where scheme = 'x402-exact' and payer = $1 and nonce = $2",
      [payer, nonce],
    );
  }

  /** x402: the transfer is on chain; `delivered` says whether the paid response goes out with it. */
  async settled(payer: Address, nonce: string, txHash: Hex, delivered: boolean): Promise<void> {
    await this.pool.query(
      `update api.payment set status = 'COMPLETED', tx_hash = $3, delivered = $4, lease_until = null, error = null,
         updated_at = now() where scheme = 'x402-exact' and payer = $1 and nonce = $2`,
      [payer, nonce, txHash, delivered],
    );
  }

  /** x402: the settlement was sent (or may have been) but its outcome is unknown; reconciled later. */
  async settling(payer: Address, nonce: string, txHash: Hex | undefined, error: string): Promise<void> {
    await this.pool.query(
      `update api.payment set status = 'SETTLING', tx_hash = coalesce($3, tx_hash), lease_until = null, error = $4,
         updated_at = now() where scheme = 'x402-exact' and payer = $1 and nonce = $2 and status <> 'COMPLETED'`,
      [payer, nonce, txHash ?? null, error],
    );
  }

  /** Returns the paid endpoint when the payment became FAILED now (so its paid side effects can be undone). */
  async failed(payer: Address, nonce: string, txHash: Hex | undefined, error: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ endpoint: string }>(
      `update api.payment set status = 'FAILED', tx_hash = coalesce($3, tx_hash), lease_until = null, error = $4,
         updated_at = now() where scheme = 'x402-exact' and payer = $1 and nonce = $2 and status <> 'COMPLETED'
       returning endpoint`,
      [payer, nonce, txHash ?? null, error],
    );
    return rows[0]?.endpoint;
  }

  /** x402 payments whose settlement outcome is unknown and that no request holds, oldest first. */
  async unsettled(olderThanSeconds: number, limit = 50): Promise<PaymentRow[]> {
    const { rows } = await this.pool.query<PaymentRow>(
      `select * from api.payment where status in ('PENDING', 'SETTLING') and scheme = 'x402-exact'
         and updated_at < now() - make_interval(secs => $1) and (lease_until is null or lease_until < now())
       order by updated_at limit $2`,
      [olderThanSeconds, limit],
    );
    return rows;
  }
}
