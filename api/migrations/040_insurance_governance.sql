-- Insurance stakes recorded through the API: each transaction (relayed permit stake or the wallet's own
-- stake) counts once, ever.
create table api.insurance_stake_record (
  tx_hash text primary key,
  agent_id bigint not null,
  wallet_address text not null,
  amount numeric(78, 0) not null,
  mode text not null, -- PERMIT | TX
  created_at timestamptz not null default now()
);

-- Short-lived bearer tokens for the governance API, issued after a SIWE sign-in. Only the SHA-256 of the
-- token is stored; a token is valid while expires_at is in the future and revoked_at is null.
create table api.access_token (
  token_hash text primary key,
  address text not null,
  scope text not null,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index access_token_expiry_idx on api.access_token (expires_at);

-- Proposals recorded through POST /api/advanced/governance/proposals: the proposer's propose() transaction
-- is accepted once.
create table api.governance_proposal_record (
  proposal_id numeric(78, 0) primary key,
  tx_hash text not null unique,
  proposer text not null,
  created_at timestamptz not null default now()
);
