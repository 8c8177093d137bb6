-- White-label organizations: credentials (stored only as SHA-256 hashes), team members, usage counters, webhooks
-- and the webhook outbox. Agents belong to an organization through api.agent_wallet.org_id (002_agents.sql).
create table api.organization (
  id text primary key,
  name text not null,
  subdomain text not null unique,
  admin_email text,
  plan text not null default 'starter' check (plan in ('starter', 'growth', 'enterprise')),
  isolation text not null default 'none' check (isolation in ('none', 'schema', 'full')),
  branding jsonb not null default '{}',
  -- Custom domain: requested (status pending, with the TXT token to publish) then verified (status active).
  domain text,
  domain_status text check (domain_status in ('pending', 'active')),
  domain_token text,
  domain_verified_at timestamptz,
  share_outbound boolean not null default false,
  accept_inbound boolean not null default false,
  whitelist_orgs text[] not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- A verified custom domain belongs to one organization.
create unique index organization_active_domain_idx on api.organization (domain) where domain_status = 'active';

-- API credentials. Only the SHA-256 of a key is kept; `prefix` (the first characters) helps a human tell keys apart.
-- A rotated key keeps working until expires_at (7 days); a null expires_at never expires.
create table api.org_credential (
  key_hash text primary key,
  org_id text not null references api.organization (id) on delete cascade,
  kind text not null check (kind in ('live', 'test', 'secret')),
  prefix text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz
);
create index org_credential_org_idx on api.org_credential (org_id, kind);

create table api.org_member (
  id text primary key,
  org_id text not null references api.organization (id) on delete cascade,
  email text not null,
  role text not null check (role in ('admin', 'developer', 'viewer')),
  created_at timestamptz not null default now(),
  unique (org_id, email)
);

-- Requests made with an organization's key and x402 payments made on them, per UTC day.
create table api.org_usage (
  org_id text not null references api.organization (id) on delete cascade,
  day date not null,
  requests bigint not null default 0,
  x402_payments bigint not null default 0,
  x402_volume numeric not null default 0,
  primary key (org_id, day)
);

create index agent_wallet_org_idx on api.agent_wallet (org_id) where org_id is not null;

-- Webhook endpoints. The signing secret is needed in clear to sign, so it is AES-256-GCM encrypted at rest.
create table api.org_webhook (
  id text primary key,
  org_id text not null references api.organization (id) on delete cascade,
  url text not null,
  events text[] not null,
  secret_enc bytea not null,
  created_at timestamptz not null default now()
);
create index org_webhook_org_idx on api.org_webhook (org_id);

-- The outbox: one event row (its exact body is what gets signed and sent, byte for byte on every attempt) and
-- one delivery row per subscribed webhook, written right after the change that caused them.
create table api.org_event (
  id text primary key,
  org_id text not null references api.organization (id) on delete cascade,
  event text not null,
  agent_id bigint,
  body text not null,
  created_at timestamptz not null default now()
);
create index org_event_org_idx on api.org_event (org_id, created_at);

create table api.webhook_delivery (
  id bigserial primary key,
  event_id text not null references api.org_event (id) on delete cascade,
  webhook_id text not null references api.org_webhook (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- A dispatcher owns a delivery until lease_until, so two API processes never send the same attempt.
  lease_until timestamptz,
  last_status_code integer,
  last_error text,
  last_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  unique (event_id, webhook_id)
);
create index webhook_delivery_due_idx on api.webhook_delivery (next_attempt_at) where status = 'pending';
create index webhook_delivery_webhook_idx on api.webhook_delivery (webhook_id, id desc);
