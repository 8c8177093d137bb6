-- Stuck transactions are replaced with a higher fee at the same nonce: every signed version is kept, since any
-- one of them may be the one mined. The relayer records a version before broadcasting it, so a crash never
-- leaves a transaction on the network that the relayer does not know about.
alter table relayer.tx
  -- The signing address: a relayer only ever replaces its own transactions (several may share the database).
  add column signer text,
  -- Destination, value and gas limit, so a replacement is the same call (faucet sends are tracked too).
  add column to_address text,
  add column value numeric(78, 0) not null default 0,
  add column gas bigint,
  add column replacements integer not null default 0;

create table relayer.tx_attempt (
  hash text primary key,
  tx_id bigint not null references relayer.tx (id) on delete cascade,
  max_fee_per_gas numeric(78, 0) not null,
  max_priority_fee_per_gas numeric(78, 0) not null,
  -- Chain head when this version was signed: "not mined after N blocks" counts from here.
  sent_block bigint not null,
  sent_at timestamptz not null default now()
);
create index tx_attempt_tx_idx on relayer.tx_attempt (tx_id, sent_at);
create index tx_signer_sent_idx on relayer.tx (signer, nonce) where status = 'SENT';
