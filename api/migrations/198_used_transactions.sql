-- One table for "this transaction hash counts once" (issue 13), instead of five: stake records, insurance stake
-- records, recorded governance proposals, subscription payments and the unique funding transaction of a run. A hash
-- counts once per purpose (the primary key); a recorded proposal also counts once (its own unique index). What each
-- table kept beside the hash moves to `detail`; api.run keeps funding_tx as data, without its own unique constraint.
create table api.used_tx (
  tx_hash text not null,                 -- lower case
  purpose text not null check (purpose in
    ('stake', 'insurance-stake', 'governance-proposal', 'subscription-payment', 'run-funding')),
  subject text not null,                 -- what it counted for: agent id, proposal id, subscription id or run id
  detail jsonb not null default '{}',
  created_at timestamptz not null default now(),
  primary key (tx_hash, purpose)
);
create unique index used_tx_proposal_idx on api.used_tx (subject) where purpose = 'governance-proposal';

insert into api.used_tx (tx_hash, purpose, subject, detail, created_at)
select lower(tx_hash), 'stake', agent_id::text,
       jsonb_build_object('wallet', wallet_address, 'amount', amount::text), created_at
  from api.stake_record;
insert into api.used_tx (tx_hash, purpose, subject, detail, created_at)
select lower(tx_hash), 'insurance-stake', agent_id::text,
       jsonb_build_object('wallet', wallet_address, 'amount', amount::text, 'mode', mode), created_at
  from api.insurance_stake_record;
insert into api.used_tx (tx_hash, purpose, subject, detail, created_at)
select lower(tx_hash), 'governance-proposal', proposal_id::text, jsonb_build_object('proposer', proposer), created_at
  from api.governance_proposal_record;
insert into api.used_tx (tx_hash, purpose, subject, detail, created_at)
select lower(tx_hash), 'subscription-payment', subscription_id::text,
       jsonb_build_object('kind', kind, 'payer', payer, 'amount', amount::text), created_at
  from api.subscription_payment;
insert into api.used_tx (tx_hash, purpose, subject, created_at)
select lower(funding_tx), 'run-funding', id::text, coalesce(funded_at, created_at)
  from api.run where funding_tx is not null;

alter table api.run drop constraint run_funding_tx_key;
drop table api.stake_record, api.insurance_stake_record, api.governance_proposal_record, api.subscription_payment;
