-- Idempotency-Key: a retried request (same scope, operation and key) gets the first request's outcome instead of
-- doing the work twice. Secrets the first answer carried (a claim code) are kept sealed (AES-256-GCM) only until
-- the record expires (24 h), so a lost answer can be recovered by the one who sent the key.
create table api.idempotency_key (
  scope text not null,          -- who may replay it: 'org:<id>' or 'ip:<client address>'
  operation text not null,      -- e.g. 'register'
  key text not null,
  request_hash text not null,   -- sha-256 of the validated request: same key with another body is refused
  resource text,                -- what the first request created (e.g. the agent's generated wallet)
  sealed_secret bytea,          -- secret of the first answer, sealed with KEY_ENCRYPTION_KEY
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (scope, operation, key)
);
create index idempotency_key_expiry_idx on api.idempotency_key (expires_at);

-- Registration: the metadata URI the mint uses (a resumed mint sends the same one).
alter table api.agent_wallet add column mint_uri text;
-- Claim: the claimant may fetch the key again (same address, signature and claim code) until this time; then the
-- key is erased. A lost or timed-out answer therefore never loses the only copy.
alter table api.agent_wallet add column key_redelivery_until timestamptz;
create index agent_wallet_redelivery_idx on api.agent_wallet (key_redelivery_until) where encrypted_key is not null;
create index agent_wallet_unminted_idx on api.agent_wallet (created_at) where agent_id is null;
