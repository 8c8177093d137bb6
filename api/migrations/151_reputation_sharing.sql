-- Reputation sharing: the organizations whose agents (with their reputation) `viewer` sees, itself included.
-- Organization A shares with B when A.share_outbound, B.accept_inbound, and each side's whitelist_orgs, when not
-- empty, names the other. Security definer: it answers from every organization's settings whatever row-level
-- security the caller is under, and reveals only the ids of organizations that chose to share with the viewer.
create function api.visible_orgs(viewer text) returns setof text
  language sql stable security definer set search_path = pg_catalog, api
as $$
  select v.id from api.organization v where v.id = viewer
  union all
  select a.id from api.organization a join api.organization v on v.id = viewer
   where a.id <> v.id
     and a.share_outbound and (cardinality(a.whitelist_orgs) = 0 or v.id = any(a.whitelist_orgs))
     and v.accept_inbound and (cardinality(v.whitelist_orgs) = 0 or a.id = any(v.whitelist_orgs))
$$;

-- Under organization row-level security (when enabled on api.agent_wallet), a request scoped to an organization
-- (setting app.org_id) may also read the agent rows of organizations sharing with it. Permissive: it only adds rows.
create policy shared_agents on api.agent_wallet for select
  using (org_id is not null and org_id in (select api.visible_orgs(current_setting('app.org_id', true))));
