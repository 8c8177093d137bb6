-- Skill tests drawn per attempt (api/src/routes/verifications/skill-attempts.ts): the questions with their answers,
-- answerable once within 30 minutes by the agent they were drawn for.
create table api.skill_attempt (
  id text primary key,
  agent_id bigint not null,
  skill_name text not null,
  questions jsonb not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index skill_attempt_expiry_idx on api.skill_attempt (expires_at);
