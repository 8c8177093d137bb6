-- The indexer's views carry ids as numeric(78,0) (Ponder's bigint); the API's tables as bigint. A join such as
-- `api.agent_profile p on p.agent_id = a.id` compares numerics, so without these indexes Postgres scans the API
-- table for every agent read (a sequential scan of every profile at a million agents). One expression index per
-- table the reads join on an indexed id.
create index agent_profile_numeric_id_idx on api.agent_profile ((agent_id::numeric));
create index agent_wallet_numeric_id_idx on api.agent_wallet ((agent_id::numeric)) where agent_id is not null;
create index reputation_numeric_id_idx on api.reputation ((agent_id::numeric));
create index agent_report_numeric_id_idx on api.agent_report ((agent_id::numeric));
create index agent_search_numeric_id_idx on api.agent_search ((agent_id::numeric));
create index verification_numeric_id_idx on api.verification ((agent_id::numeric));
