-- API-owned off-chain state lives in schema "api"; indexed chain data is read from the indexer's views schema.
create extension if not exists pg_trgm;

-- Fixed-window counters shared by every API process (rate limits).
create table api.rate_limit (
  key text not null,
  window_start timestamptz not null,
  count integer not null,
  primary key (key, window_start)
);
create index rate_limit_window_idx on api.rate_limit (window_start);
