-- Gas sponsorship (ERC-4337 paymaster): the budgets an admin sets, and every sponsorship signed, keyed by the
-- operation's (sender, nonce) because only one operation per pair can ever execute. A signed sponsorship counts
-- against its period's budget at its maximum cost until the indexer shows the operation's actual cost, or until
-- its signature expired unused.
create table api.paymaster_budget (
  id boolean primary key default true check (id),
  agent_budget_wei numeric(78, 0) not null check (agent_budget_wei >= 0),
  global_budget_wei numeric(78, 0) not null check (global_budget_wei >= 0),
  period_seconds integer not null check (period_seconds > 0),
  updated_at timestamptz not null default now()
);

create table api.paymaster_sponsorship (
  sender text not null,
  nonce numeric(78, 0) not null,
  agent_id bigint not null,
  period_start bigint not null,
  max_cost_wei numeric(78, 0) not null,
  valid_until bigint not null,
  signed_at timestamptz not null default now(),
  primary key (sender, nonce)
);
create index paymaster_sponsorship_period_idx on api.paymaster_sponsorship (period_start, agent_id);
