-- Health checks of each agent's endpoints.webhook (HEAD every UPTIME_INTERVAL_SECONDS).
-- Raw checks are kept for a short time (last-check detail, debugging); the 30-day uptime and latency figures
-- come from per-day aggregates so the table stays small with many agents.
create table api.uptime_check (
  id bigserial not null,             -- recording order (chain time can stand still between blocks)
  agent_id bigint not null,
  round_id text not null,            -- one scheduled uptime pass; a retried batch never counts a check twice
  checked_at timestamptz not null,   -- chain time
  up boolean not null,
  status_code integer,
  latency_ms integer,
  error text,
  target text not null,
  primary key (agent_id, round_id)
);
create index uptime_check_time_idx on api.uptime_check (checked_at);
create index uptime_check_agent_idx on api.uptime_check (agent_id, id desc);

create table api.uptime_daily (
  agent_id bigint not null,
  day date not null,                 -- UTC day of the chain time of the check
  checks integer not null default 0,
  ups integer not null default 0,
  latency_sum_ms bigint not null default 0, -- over successful checks
  primary key (agent_id, day)
);
create index uptime_daily_day_idx on api.uptime_daily (day);
