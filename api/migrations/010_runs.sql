-- Runs (bounties). A run starts as an API-only DRAFT whose request JSON is stored under a CID; funding puts it
-- on chain (RunEscrow) and links the on-chain run id. The API id (bountyId) never changes; everything after
-- funding (state, agent, deliverable, money) is read from the indexer's chain.run view.
create table api.run (
  id bigserial primary key,
  poster_address text not null,            -- checksummed
  title text not null,
  description text not null,
  reward numeric(78, 0) not null,          -- USDC base units, as drafted
  deadline bigint not null,                -- unix seconds, as drafted
  max_revisions integer not null,
  request_cid text not null,               -- ipfs://<request_cid> is the on-chain metadataUri
  onchain_run_id numeric(78, 0) unique,    -- RunEscrow runId once funded
  funding_tx text unique,                  -- createRun / createRunWithPermit transaction (counts once)
  funded_at timestamptz,
  created_at timestamptz not null default now()
);
create index run_poster_idx on api.run (lower(poster_address));
create index run_unfunded_idx on api.run (id) where onchain_run_id is null;

-- Who asked for each on-chain step (the relayer is the transaction sender), with off-chain details such as
-- revision feedback, rejection and dispute reasons.
create table api.run_action (
  id bigserial primary key,
  run_id bigint not null references api.run (id),
  action text not null,
  signer text,                             -- null for admin actions
  agent_id bigint,
  tx_hash text,
  detail jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index run_action_run_idx on api.run_action (run_id);
create index run_action_tx_idx on api.run_action (tx_hash);

-- A short lease per run: state-changing requests on one run are serialized across API processes, so two
-- concurrent claims cannot both be sent (the loser then sees the run CLAIMED and gets RUN_NOT_AVAILABLE).
create table api.run_lock (
  run_id bigint primary key,
  holder text not null,
  expires_at timestamptz not null
);
