-- Every transaction the relayer signs, so none is lost or sent twice for one idempotency key.
-- (`if not exists`: relayers before numbered migrations created the same table at start-up.)
create table if not exists relayer.tx (
  id bigserial primary key,
  idempotency_key text unique,
  target text not null,
  function_name text not null,
  data text not null,
  tx_hash text,
  nonce bigint,
  status text not null,
  error text,
  block_number bigint,
  gas_used bigint,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists tx_status_idx on relayer.tx (status) where status in ('PENDING', 'SENT');
