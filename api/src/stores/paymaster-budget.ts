// Sponsorship budgets and the ledger of signed sponsorships (api.paymaster_budget, api.paymaster_sponsorship).
// Spent in a period = for each sponsorship signed in it: the actual cost once the indexer saw the operation
// (chain.user_operation), else its maximum cost while its signature can still be used (plus a grace for indexer lag)
// and it is its sender's latest: anyone may ask for any account (an ERC-7677 request carries no proof of control), so
// each sender holds one pending reservation; an earlier one is superseded (valid_until = 0) and counts only once its
// operation reaches the chain.
import type pg from "pg";
import { withTransaction } from "../db/transaction.ts";

/** Why a reservation was refused (nothing is reserved then). */
export interface BudgetRefusal {
  /** The paymaster's policy code (a JSON-RPC error's data, not an API error code). */
  reason: "AGENT_BUDGET_EXCEEDED" | "GLOBAL_BUDGET_EXCEEDED";
  message: string;
}

export interface Budget {
  agentBudgetWei: bigint;
  globalBudgetWei: bigint;
  periodSeconds: number;
}

/** After its signature expired, an operation not yet indexed still counts this long (indexer lag). */
const EXPIRY_GRACE_SECONDS = 120;

export class BudgetStore {
  constructor(
    private readonly pool: pg.Pool,
    /** The qualified name of the indexer's user_operation view. */
    private readonly userOperationView: string,
    private readonly defaults: Budget,
  ) {}

  async budget(db: pg.Pool | pg.PoolClient = this.pool): Promise<Budget> {
    const r = await db.query<{ agent: string; global: string; period: number }>(
      `select agent_budget_wei::text as agent, global_budget_wei::text as global, period_seconds as period
         from api.paymaster_budget`,
    );
    const row = r.rows[0];
    return row
      ? { agentBudgetWei: BigInt(row.agent), globalBudgetWei: BigInt(row.global), periodSeconds: row.period }
      : this.defaults;
  }

  async setBudget(budget: Budget): Promise<Budget> {
    await this.pool.query(
      `insert into api.paymaster_budget (id, agent_budget_wei, global_budget_wei, period_seconds, updated_at)
       values (true, $1, $2, $3, now())
       on conflict (id) do update set agent_budget_wei = $1, global_budget_wei = $2, period_seconds = $3,
                                      updated_at = now()`,
      [budget.agentBudgetWei.toString(), budget.globalBudgetWei.toString(), budget.periodSeconds],
    );
    return budget;
  }

  /**
   * Each sponsorship of period $1 with what it costs now, except sender $5's pending ones (a new reservation of $5
   * supersedes them); parameters $1-$5 as in `spent`.
   */
  private get costsSql(): string {
    return `select s.agent_id,
                   case when uo.user_op_hash is not null then uo.actual_gas_cost
                        when s.sender = $5 then 0
                        when s.valid_until + $4::int >= $2::bigint then s.max_cost_wei
                        else 0 end as cost
              from api.paymaster_sponsorship s
              left join ${this.userOperationView} uo on uo.sender = s.sender and uo.nonce = s.nonce
             where s.period_start = $1`;
  }

  /** What the period starting at `periodStart` has spent, globally and (when given) for one agent. */
  async spent(
    periodStart: bigint,
    now: bigint,
    agentId?: bigint,
    db: pg.Pool | pg.PoolClient = this.pool,
  ): Promise<{ global: bigint; agent: bigint }> {
    const r = await db.query<{ global: string; agent: string }>(
      `select coalesce(sum(cost), 0)::text as global,
              coalesce(sum(cost) filter (where agent_id = $3), 0)::text as agent
         from (${this.costsSql}) costs`,
      [periodStart.toString(), now.toString(), agentId?.toString() ?? null, EXPIRY_GRACE_SECONDS, ""],
    );
    return { global: BigInt(r.rows[0]!.global), agent: BigInt(r.rows[0]!.agent) };
  }

  /**
   * Records a sponsorship if it fits both budgets of its period. The check and the insert are one statement in a
   * SERIALIZABLE transaction: two API processes reserving at once cannot both pass on the same remainder (one of
   * them fails with a serialization error and is retried), and no request ever waits on a lock while holding its
   * connection. The sender's earlier pending reservations are superseded: they count again only once their
   * operation reaches the chain (at its actual cost), so a stranger asking for an agent's account holds at most one
   * operation's maximum cost of its budget, and the agent's own next request takes that over.
   */
  async reserve(entry: {
    sender: string;
    nonce: bigint;
    agentId: bigint;
    maxCostWei: bigint;
    validUntil: number;
    now: bigint;
  }): Promise<BudgetRefusal | undefined> {
    const budget = await this.budget();
    const periodStart = entry.now - (entry.now % BigInt(budget.periodSeconds));
    for (let attempt = 1; ; attempt++) {
      try {
        const row = await withTransaction(
          this.pool,
          (client) =>
            client.query<{ agent_ok: boolean; global_ok: boolean; agent_left: string }>(
              `with costs as (${this.costsSql}),
                  spent as (select coalesce(sum(cost), 0) as global,
                                   coalesce(sum(cost) filter (where agent_id = $3), 0) as agent from costs),
                  verdict as (select spent.agent + $7::numeric <= $8::numeric as agent_ok,
                                     spent.global + $7::numeric <= $9::numeric as global_ok,
                                     $8::numeric - spent.agent as agent_left from spent),
                  superseded as (
                    update api.paymaster_sponsorship set valid_until = 0
                     where sender = $5::text and nonce <> $6::numeric and exists (select 1 from verdict where agent_ok and global_ok)
                    returning 1),
                  saved as (
                    insert into api.paymaster_sponsorship
                      (sender, nonce, agent_id, period_start, max_cost_wei, valid_until)
                    select $5::text, $6::numeric, $3::bigint, $1::bigint, $7::numeric, $10::bigint
                      from verdict where agent_ok and global_ok
                    on conflict (sender, nonce) do update
                      set agent_id = excluded.agent_id, period_start = excluded.period_start,
                          max_cost_wei = excluded.max_cost_wei, valid_until = excluded.valid_until, signed_at = now()
                    returning 1)
             select agent_ok, global_ok, agent_left::text from verdict`,
              [
                periodStart.toString(),
                entry.now.toString(),
                entry.agentId.toString(),
                EXPIRY_GRACE_SECONDS,
                entry.sender.toLowerCase(),
                entry.nonce.toString(),
                entry.maxCostWei.toString(),
                budget.agentBudgetWei.toString(),
                budget.globalBudgetWei.toString(),
                entry.validUntil,
              ],
            ),
          { serializable: true },
        ).then((r) => r.rows[0]!);
        if (!row.agent_ok) {
          return {
            reason: "AGENT_BUDGET_EXCEEDED",
            message:
              `agent ${entry.agentId} has ${row.agent_left} wei of its ${budget.agentBudgetWei} wei sponsorship budget ` +
              `left this period; this operation may cost ${entry.maxCostWei} wei`,
          };
        }
        if (!row.global_ok) {
          return { reason: "GLOBAL_BUDGET_EXCEEDED", message: "the paymaster's budget for this period is used up" };
        }
        return undefined;
      } catch (error) {
        // 40001: another reservation of the period committed first; re-read and decide again.
        if ((error as { code?: string }).code !== "40001" || attempt >= 8) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
      }
    }
  }
}
