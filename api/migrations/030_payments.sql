-- Every accepted payment, both schemes. (scheme, payer, nonce) is the replay key: a payment is served at most once,
-- whatever the signature bytes (a high-s twin of a signature carries the same nonce).
-- scheme 'agenthub': the spec's EIP-712 Payment in x-payment; amount in 18-decimal units; nothing moves on chain.
-- scheme 'x402-exact': standard x402 `exact` (EIP-3009 transferWithAuthorization on USDC); amount in USDC base units;
--   nonce is the authorization's bytes32 nonce; settled by the relayer, idempotency key = the nonce.
-- Rows are never pruned: spec payments carry no expiry, so forgetting a nonce would let it be replayed
-- (the spec asks for at least 24 hours).
create table api.payment (
  scheme text not null check (scheme in ('agenthub', 'x402-exact')),
  payer text not null,
  nonce text not null,
  recipient text not null,
  amount numeric(78, 0) not null,
  asset text,
  endpoint text not null,
  -- PENDING: claimed, request being served (x402: not settled yet); SETTLING: settlement sent, outcome unknown;
  -- COMPLETED: accepted (agenthub) or settled on chain (x402); FAILED: settlement reverted.
  status text not null check (status in ('PENDING', 'SETTLING', 'COMPLETED', 'FAILED')),
  -- x402: whether the paid response reached the client. A settled-but-undelivered payment may be presented again.
  delivered boolean not null default false,
  -- x402: the request currently serving this payment holds the lease until then.
  lease_until timestamptz,
  tx_hash text,
  x402_version smallint,
  -- x402: the signed payload ({signature, authorization}) so a settlement can be reconciled or resumed.
  payload jsonb,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (scheme, payer, nonce)
);
create index payment_unsettled_idx on api.payment (updated_at) where status in ('PENDING', 'SETTLING');
create index payment_created_idx on api.payment using brin (created_at);
