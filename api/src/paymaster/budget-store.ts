// Sponsorship budgets and the ledger of signed sponsorships (api.paymaster_budget, api.paymaster_sponsorship).
// Spent in a period = for each sponsorship signed in it: the actual cost once the indexer saw the operation
// (chain.user_operation), else its maximum cost while its signature can still be used (plus a grace for indexer lag).
import type pg from "pg";
import { withTransaction } from "../db/transaction.ts";
import { PolicyRefusal } from "./calls.ts";

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
    private readonly indexerSchema: string,
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

  /** What the period starting at `periodStart` has spent, globally and (when given) for one agent. */
  async spent(
    periodStart: bigint,
    now: bigint,
    agentId?: bigint,
    db: pg.Pool | pg.PoolClient = this.pool,
    except?: { sender: string; nonce: bigint },
  ): Promise<{ global: bigint; agent: bigint }> {
    const r = await db.query<{ global: string; agent: string }>(
      `select coalesce(sum(cost), 0)::text as global,
              coalesce(sum(cost) filter (where agent_id = $3), 0)::text as agent
         from (select s.agent_id,
                      case when uo.user_op_hash is not null then uo.actual_gas_cost
                           when s.valid_until + $4 >= $2 then s.max_cost_wei
                           else 0 end as cost
                 from api.paymaster_sponsorship s
                 left join ${this.indexerSchema}.user_operation uo
                   on uo.sender = s.sender and uo.nonce = s.nonce
                where s.period_start = $1
                  and not (s.sender = $5 and s.nonce = $6)) costs`,
      [
        periodStart.toString(),
        now.toString(),
        agentId?.toString() ?? null,
        EXPIRY_GRACE_SECONDS,
        except?.sender.toLowerCase() ?? "",
        (except?.nonce ?? -1n).toString(),
      ],
    );
    return { global: BigInt(r.rows[0]!.global), agent: BigInt(r.rows[0]!.agent) };
  }

  /**
   * Records a sponsorship if it fits both budgets of its period, atomically across API processes (one advisory
   * lock serializes the check and the insert). Signing the same (sender, nonce) again replaces the earlier one:
   * only one of them can ever execute.
   */
  async reserve(entry: {
    sender: string;
    nonce: bigint;
    agentId: bigint;
    maxCostWei: bigint;
    validUntil: number;
    now: bigint;
  }): Promise<void> {
    await withTransaction(this.pool, async (client) => {
      await client.query("select pg_advisory_xact_lock(hashtext('api.paymaster_sponsorship'))");
      const budget = await this.budget(client);
      const periodStart = entry.now - (entry.now % BigInt(budget.periodSeconds));
      const spent = await this.spent(periodStart, entry.now, entry.agentId, client, entry);
      if (spent.agent + entry.maxCostWei > budget.agentBudgetWei) {
        throw new PolicyRefusal(
          "AGENT_BUDGET_EXCEEDED",
          `agent ${entry.agentId} has ${budget.agentBudgetWei - spent.agent} wei of its ${budget.agentBudgetWei} wei ` +
            `sponsorship budget left this period; this operation may cost ${entry.maxCostWei} wei`,
        );
      }
      if (spent.global + entry.maxCostWei > budget.globalBudgetWei) {
        throw new PolicyRefusal("GLOBAL_BUDGET_EXCEEDED", "the paymaster's budget for this period is used up");
      }
      await client.query(
        `insert into api.paymaster_sponsorship (sender, nonce, agent_id, period_start, max_cost_wei, valid_until)
         values ($1, $2, $3, $4, $5, $6)
         on conflict (sender, nonce) do update
           set agent_id = $3, period_start = $4, max_cost_wei = $5, valid_until = $6, signed_at = now()`,
        [
          entry.sender.toLowerCase(),
          entry.nonce.toString(),
          entry.agentId.toString(),
          periodStart.toString(),
          entry.maxCostWei.toString(),
          entry.validUntil,
        ],
      );
    });
  }
}
