-- Organization isolation (docs/decisions.md, "Organization isolation: row-level security"). Every request made with
-- an organization's credentials runs its queries as the role agenthub_tenant with the setting app.org_id = that
-- organization (api/src/db/org-scope.ts). The role never bypasses row-level security, so under org A's setting a
-- query that forgets its organization filter still cannot read or write the rows of an organization with isolation
-- "schema" (or those of a "full" one). Rows of organizations with isolation "none" stay in shared storage, filtered
-- by organization in the API's queries, as the plan says. Owner and superuser sessions (start-up, jobs, requests
-- without an organization key) are not affected.

do $$
begin
  create role agenthub_tenant nologin nosuperuser nobypassrls;
exception when duplicate_object then
  null; -- roles are per cluster: another database of the cluster made it
end $$;

-- A non-superuser API role must be a member to SET ROLE to it (a superuser may always).
do $$
begin
  if not (select rolsuper from pg_roles where rolname = current_user) then
    execute format('grant agenthub_tenant to %I', current_user);
  end if;
end $$;

-- What requests need: the API's tables and sequences, the indexer's views (recreated by Ponder at every start, so
-- through default privileges of this role) and the schemas that hold them.
grant usage on schema api to agenthub_tenant;
grant select, insert, update, delete on all tables in schema api to agenthub_tenant;
grant usage, select, update on all sequences in schema api to agenthub_tenant;
alter default privileges in schema api grant select, insert, update, delete on tables to agenthub_tenant;
alter default privileges in schema api grant usage, select, update on sequences to agenthub_tenant;
alter default privileges grant select on tables to agenthub_tenant;
alter default privileges grant usage on schemas to agenthub_tenant;
do $$
declare s text;
begin
  for s in select nspname from pg_namespace n join pg_roles r on r.oid = n.nspowner
            where r.rolname = current_user and nspname not in ('api', 'information_schema') and nspname not like 'pg\_%'
  loop
    execute format('grant usage on schema %I to agenthub_tenant', s);
    execute format('grant select on all tables in schema %I to agenthub_tenant', s);
  end loop;
end $$;

-- Whether the current tenant may see rows of organization `org`: shared rows (no organization), its own, and those of
-- organizations without isolation. Reads api.organization under its own policy below.
create function api.tenant_sees(org text) returns boolean
  language sql stable
  as $$
    select org is null or org = current_setting('app.org_id', true)
        or exists (select 1 from api.organization o where o.id = org and o.isolation = 'none')
  $$;

alter table api.organization enable row level security;
create policy tenant_rows on api.organization for all to agenthub_tenant
  using (id = current_setting('app.org_id', true) or isolation = 'none')
  with check (id = current_setting('app.org_id', true));

alter table api.org_credential enable row level security;
create policy tenant_rows on api.org_credential for all to agenthub_tenant
  using (api.tenant_sees(org_id)) with check (api.tenant_sees(org_id));

alter table api.org_member enable row level security;
create policy tenant_rows on api.org_member for all to agenthub_tenant
  using (api.tenant_sees(org_id)) with check (api.tenant_sees(org_id));

alter table api.org_usage enable row level security;
create policy tenant_rows on api.org_usage for all to agenthub_tenant
  using (api.tenant_sees(org_id)) with check (api.tenant_sees(org_id));

alter table api.org_webhook enable row level security;
create policy tenant_rows on api.org_webhook for all to agenthub_tenant
  using (api.tenant_sees(org_id)) with check (api.tenant_sees(org_id));

alter table api.org_event enable row level security;
create policy tenant_rows on api.org_event for all to agenthub_tenant
  using (api.tenant_sees(org_id)) with check (api.tenant_sees(org_id));

-- Deliveries belong to the organization of their webhook (itself under its policy).
alter table api.webhook_delivery enable row level security;
create policy tenant_rows on api.webhook_delivery for all to agenthub_tenant
  using (exists (select 1 from api.org_webhook h where h.id = webhook_id))
  with check (exists (select 1 from api.org_webhook h where h.id = webhook_id));

-- Agents registered under an organization (wallet keys, claim codes); public agents have no organization.
alter table api.agent_wallet enable row level security;
create policy tenant_rows on api.agent_wallet for all to agenthub_tenant
  using (api.tenant_sees(org_id)) with check (api.tenant_sees(org_id));
