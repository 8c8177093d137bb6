// The relayer's Prometheus series (next to the process and HTTP series of common/src/metrics.ts).
import { Counter, Gauge, type Registry } from "prom-client";

export class RelayerMetrics {
  readonly transactions: Counter<"function" | "outcome">;
  readonly replacements: Counter;
  private readonly pending: Gauge;
  private readonly oldestPending: Gauge;
  private readonly balance: Gauge;
  private readonly balanceLow: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    this.transactions = new Counter({
      name: "relayer_transactions_total",
      help: "Relayed transactions by call and outcome (success, reverted, failed before mining, dropped)",
      labelNames: ["function", "outcome"],
      registers,
    });
    this.replacements = new Counter({
      name: "relayer_transaction_replacements_total",
      help: "Stuck transactions re-sent at the same nonce with a higher fee",
      registers,
    });
    this.pending = new Gauge({
      name: "relayer_pending_transactions",
      help: "Transactions sent and not yet mined",
      registers,
    });
    this.oldestPending = new Gauge({
      name: "relayer_oldest_pending_transaction_seconds",
      help: "Age of the oldest transaction sent and not yet mined",
      registers,
    });
    this.balance = new Gauge({
      name: "relayer_signer_balance_eth",
      help: "ETH balance of the relayer's signer",
      registers,
    });
    this.balanceLow = new Gauge({
      name: "relayer_signer_balance_low",
      help: "1 when the signer's balance is below RELAYER_MIN_BALANCE_WEI",
      registers,
    });
  }

  setInFlight(status: { pending: number; oldestPendingSeconds: number }): void {
    this.pending.set(status.pending);
    this.oldestPending.set(status.oldestPendingSeconds);
  }

  setBalance(wei: bigint, minimum: bigint): void {
    this.balance.set(Number(wei) / 1e18);
    this.balanceLow.set(wei < minimum ? 1 : 0);
  }
}
