-- A digest of every stored reputation value, so a recompute compares one short string per agent and writes only
-- the agents whose reputation changed.
alter table api.reputation add column fingerprint text;
