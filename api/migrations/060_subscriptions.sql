-- Subscriptions: recurring runs funded from a prepaid USDC balance the poster transferred to the platform's
-- subscription account (the relayer's address). The scheduler job creates each due run on chain with
-- RunEscrow.createSponsoredRun (poster = the subscriber, reward + 5% fee paid by the relayer) and debits the
-- balance here. Times are chain time (unix seconds).
create table api.subscription (
  id bigserial primary key,
  poster_address text not null,                 -- checksummed
  instructions text not null,                   -- as submitted
  task text not null,                           -- instructions without the cadence: each run's description
  cadence text not null,                        -- normalized, e.g. "daily for 30 days"
  interval_label text not null,                 -- "daily", "every 6 hours", "every monday"
  every_seconds integer not null check (every_seconds > 0),
  total_runs integer not null check (total_runs > 0),
  runs_created integer not null default 0 check (runs_created >= 0 and runs_created <= total_runs),
  reward_per_run numeric(78, 0) not null check (reward_per_run > 0),
  fee_per_run numeric(78, 0) not null check (fee_per_run >= 0),
  balance_remaining numeric(78, 0) not null check (balance_remaining >= 0),
  total_funded numeric(78, 0) not null,         -- all USDC credited (creation + top-ups)
  forfeited numeric(78, 0) not null default 0,  -- balance kept by the platform at cancel / completion
  status text not null check (status in ('ACTIVE', 'PAUSED', 'EXHAUSTED', 'COMPLETED', 'CANCELLED')),
  starts_at bigint not null,
  next_run_at bigint,                           -- null once COMPLETED or CANCELLED
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index subscription_poster_idx on api.subscription (lower(poster_address), id desc);
create index subscription_status_idx on api.subscription (status, id desc);
create index subscription_due_idx on api.subscription (next_run_at) where status = 'ACTIVE';

-- Each USDC transfer that funded a subscription counts once (creation or top-up).
create table api.subscription_payment (
  tx_hash text primary key,                     -- lower case
  subscription_id bigint not null references api.subscription (id),
  kind text not null check (kind in ('create', 'topup')),
  payer text not null,
  amount numeric(78, 0) not null,               -- credited: the Transfer's value
  created_at timestamptz not null default now()
);

-- One row per scheduled run slot (0-based). Reserved (PENDING, balance already debited) in the same
-- transaction that advances the subscription, then sent through the relayer with the idempotency key
-- subscription-run:<id>:<slot>, so a crash or a second process can never create a slot twice.
create table api.subscription_run (
  subscription_id bigint not null references api.subscription (id),
  slot integer not null,
  run_id bigint not null unique references api.run (id),
  scheduled_for bigint not null,
  amount numeric(78, 0) not null,               -- reward + fee debited
  status text not null check (status in ('PENDING', 'CREATED')),
  tx_hash text,
  attempts integer not null default 0,
  last_error text,
  created_at timestamptz not null default now(),
  primary key (subscription_id, slot)
);
create index subscription_run_pending_idx on api.subscription_run (created_at) where status = 'PENDING';

-- Money movements of each subscription's balance, for audits: fund/topup (+), run/forfeit (-).
create table api.subscription_ledger (
  id bigserial primary key,
  subscription_id bigint not null references api.subscription (id),
  kind text not null check (kind in ('fund', 'topup', 'run', 'forfeit')),
  amount numeric(78, 0) not null,
  balance_after numeric(78, 0) not null,
  tx_hash text,
  run_id bigint,
  created_at timestamptz not null default now()
);
create index subscription_ledger_sub_idx on api.subscription_ledger (subscription_id, id);
