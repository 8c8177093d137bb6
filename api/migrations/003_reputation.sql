-- Current reputation per agent (recomputed on every trigger); agents without a row score the starting 50.
create table api.reputation (
  agent_id bigint primary key,
  score double precision not null default 50,
  success_rate double precision not null default 0,
  uptime_percentage double precision not null default 0,
  avg_response_time_ms double precision not null default 0,
  attestation_count integer not null default 0,
  attestation_score double precision not null default 0,
  verification_points integer not null default 0,
  verification_badges text[] not null default '{}',
  coding_score double precision not null default 0,
  research_score double precision not null default 0,
  content_score double precision not null default 0,
  components jsonb not null default '{}',
  updated_at timestamptz not null default now()
);
create index reputation_score_idx on api.reputation (score desc);
