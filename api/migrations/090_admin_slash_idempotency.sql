-- Admin slashes with an Idempotency-Key: the key is bound to the request it first came with, so a retry (same key,
-- same agent, percentage and reason) answers the first slash instead of slashing again.
create table api.admin_slash (
  idempotency_key text primary key,
  agent_id bigint not null,
  bps integer not null,
  reason text not null,
  created_at timestamptz not null default now()
);
