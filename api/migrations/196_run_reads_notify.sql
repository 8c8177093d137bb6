-- The run page and the run list are cached like the agent pages (api/src/stores/read-cache.ts): statements that
-- change runs, who acted on them, or the stored objects a run page links (a deliverable's CID) empty the caches.
create trigger run_reads_changed after insert or update or delete or truncate on api.run
  for each statement execute function api.agent_reads_notify();
create trigger run_reads_changed after insert or update or delete or truncate on api.run_action
  for each statement execute function api.agent_reads_notify();
create trigger run_reads_changed after insert or update or delete or truncate on api.ipfs_object
  for each statement execute function api.agent_reads_notify();
