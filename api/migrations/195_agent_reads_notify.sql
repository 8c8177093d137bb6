-- Every statement that changes what the agent, reputation and list pages show from the API's own tables tells the
-- API processes, which empty their read caches (api/src/stores/read-cache.ts); chain facts are announced by
-- Ponder's commit of each block. NOTIFY folds repeats within a transaction into one.
create function api.agent_reads_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('agenthub_agent_reads', '');
  return null;
end $$;
create trigger agent_reads_changed after insert or update or delete or truncate on api.agent_profile
  for each statement execute function api.agent_reads_notify();
create trigger agent_reads_changed after insert or update or delete or truncate on api.reputation
  for each statement execute function api.agent_reads_notify();
create trigger agent_reads_changed after insert or update or delete or truncate on api.agent_report
  for each statement execute function api.agent_reads_notify();
create trigger agent_reads_changed after insert or update or delete or truncate on api.agent_wallet
  for each statement execute function api.agent_reads_notify();
