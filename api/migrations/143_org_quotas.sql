-- Plan quotas (supplement §8; docs/decisions.md, "Organization quotas"): payments per day and API calls per month,
-- counted per organization and period in Postgres so every API process shares them. An organization may carry its
-- own values (the enterprise plan's "custom"; set with the platform admin token); null means the plan's value.
alter table api.organization
  add column payments_per_day integer check (payments_per_day > 0),
  add column api_calls_per_month integer check (api_calls_per_month > 0);

create table api.org_quota (
  org_id text not null references api.organization (id) on delete cascade,
  kind text not null check (kind in ('calls', 'payments')),
  -- Start of the UTC month (calls) or day (payments).
  period_start timestamptz not null,
  used bigint not null default 0,
  primary key (org_id, kind, period_start)
);
