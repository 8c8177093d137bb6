-- A snapshot each time a recalculation changes an agent's score (with the trigger that caused it). components holds
-- the inputs the score was computed from (as api.reputation.components does); the API rebuilds the breakdown.
create table api.reputation_history (
  id bigserial primary key,
  agent_id bigint not null,
  score double precision not null,
  components jsonb not null,
  trigger text not null,
  computed_at timestamptz not null
);
create index reputation_history_agent_idx on api.reputation_history (agent_id, id desc);
create index reputation_history_time_idx on api.reputation_history (computed_at);

-- Progress markers of background jobs (e.g. the last indexed run-stats change already folded into reputation).
create table api.job_cursor (
  name text primary key,
  value jsonb not null,
  updated_at timestamptz not null default now()
);
