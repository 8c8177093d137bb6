-- Paid search answers given to an organization key depend on reputation sharing (api.visible_orgs): a change of an
-- organization's sharing settings empties every API process's search cache, as a change of the index does (033).
create trigger organization_sharing_changed after update of share_outbound, accept_inbound, whitelist_orgs
  on api.organization for each row
  when (old.share_outbound is distinct from new.share_outbound
     or old.accept_inbound is distinct from new.accept_inbound
     or old.whitelist_orgs is distinct from new.whitelist_orgs)
  execute function api.agent_search_notify();
