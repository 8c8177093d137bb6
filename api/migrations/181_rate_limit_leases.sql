-- Per-minute public limits counted by leases (api/src/lib/rate-limit.ts): a process takes a few hits of a window's
-- allowance at a time and admits them from memory, so most requests write nothing. Grants only ever add up to the
-- limit, so the limit holds across processes. UNLOGGED: no WAL per grant; after a Postgres crash the current
-- minute's counts start again from zero, which a per-minute limit can afford (long windows, e.g. registrations,
-- stay in the logged api.rate_limit).
create unlogged table api.rate_limit_lease (
  key text not null,
  window_start timestamptz not null,
  granted integer not null,     -- hits of the window handed out to processes so far (admitted or still leased)
  last_grant integer not null,  -- size of the latest grant (set together with granted)
  max integer not null,         -- the limit the grants are bounded by
  primary key (key, window_start)
);
create index rate_limit_lease_window_idx on api.rate_limit_lease (window_start);
