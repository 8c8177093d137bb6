-- Domain, stake and skill verifications (badges). Times are chain time.
create table api.verification (
  id bigserial primary key,
  agent_id bigint not null,
  type text not null check (type in ('domain', 'stake', 'skill')),
  status text not null check (status in ('PENDING', 'VERIFIED', 'FAILED', 'EXPIRED')),
  domain text,
  token text,
  min_stake_amount numeric(78, 0),
  actual_balance numeric(78, 0),
  skill_name text,
  score integer,
  answers jsonb,
  badge text,
  message text,
  created_at timestamptz not null,
  verified_at timestamptz,
  expires_at timestamptz,
  last_checked_at timestamptz
);
create index verification_agent_idx on api.verification (agent_id, id);
create index verification_expiry_idx on api.verification (expires_at) where status = 'VERIFIED';
create index verification_skill_idx on api.verification (agent_id, skill_name, created_at desc) where type = 'skill';
create index verification_domain_idx on api.verification (domain) where type = 'domain';
-- A domain backs at most one agent's badge at a time.
create unique index verification_domain_verified_idx on api.verification (domain)
  where type = 'domain' and status = 'VERIFIED';
