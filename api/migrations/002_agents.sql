-- Content-addressed blobs (profile metadata, run requests) served at /ipfs/:cid.
create table api.ipfs_object (
  cid text primary key,
  content bytea not null,
  content_type text not null,
  created_at timestamptz not null default now()
);

-- The wallet the service generated for each agent. The key is AES-256-GCM encrypted and deleted at claim.
-- A row exists before the mint (agent_id null) so a crash between mint and answer loses nothing.
create table api.agent_wallet (
  wallet_address text primary key,
  agent_id bigint unique,
  encrypted_key bytea,
  claim_code_hash text not null unique,
  claim_expires_at timestamptz not null,
  claim_state text, -- null (open), CLAIMING (one request won the race), CLAIMED
  claimed_by text,
  claimed_at timestamptz,
  claim_tx text,
  mint_tx text,
  org_id text,
  registered_ip text,
  created_at timestamptz not null default now()
);

-- array_to_string is only STABLE in general; for text[] it is immutable, which generated columns need.
create function api.join_tags(text[]) returns text language sql immutable parallel safe
  as $$ select array_to_string($1, ' ') $$;

-- Latest off-chain copy of each agent's profile (the chain keeps its ipfs:// URI).
create table api.agent_profile (
  agent_id bigint primary key,
  name text not null,
  description text not null default '',
  capabilities text[] not null default '{}',
  programming_langs text[] not null default '{}',
  domains text[] not null default '{}',
  tools text[] not null default '{}',
  endpoints jsonb not null default '{}',
  image text,
  metadata_cid text not null,
  search tsvector generated always as (
    setweight(to_tsvector('simple', coalesce(name, '')), 'A') ||
    setweight(to_tsvector('english', coalesce(description, '')), 'B') ||
    setweight(to_tsvector('simple', api.join_tags(capabilities) || ' ' || api.join_tags(tools)), 'B') ||
    setweight(to_tsvector('simple', api.join_tags(programming_langs) || ' ' || api.join_tags(domains)), 'C')
  ) stored,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index agent_profile_search_idx on api.agent_profile using gin (search);
create index agent_profile_name_trgm_idx on api.agent_profile using gin (name gin_trgm_ops);
create index agent_profile_capabilities_idx on api.agent_profile using gin (capabilities);
create index agent_profile_langs_idx on api.agent_profile using gin (programming_langs);
create index agent_profile_domains_idx on api.agent_profile using gin (domains);
create index agent_profile_tools_idx on api.agent_profile using gin (tools);

-- Single-use nonces for signed requests.
create table api.auth_nonce (
  nonce text primary key,
  expires_at timestamptz not null,
  used_at timestamptz,
  used_by text,
  created_at timestamptz not null default now()
);
create index auth_nonce_expiry_idx on api.auth_nonce (expires_at);

-- Each stake transaction is recorded once, ever.
create table api.stake_record (
  tx_hash text primary key,
  agent_id bigint not null,
  wallet_address text not null,
  amount numeric(78, 0) not null,
  created_at timestamptz not null default now()
);

create table api.agent_report (
  id bigserial primary key,
  agent_id bigint not null,
  reason text not null,
  details text not null,
  reporter_ip text not null,
  status text not null default 'PENDING',
  created_at timestamptz not null default now()
);
create index agent_report_agent_idx on api.agent_report (agent_id);
