-- Search index for POST /api/intelligence/search: one row per agent with every filter column and the reputation
-- score, so one table serves both plans Postgres needs at 1M agents: GIN lookups for rare terms, and a walk down
-- the score index (stopping after `limit` matches) for common ones. Kept in sync by triggers on api.agent_profile,
-- api.reputation and api.verification; nothing in the application writes it.

-- Tags are matched case-insensitively.
create function api.lower_tags(text[]) returns text[] language sql immutable parallel safe
  as $$ select coalesce(array_agg(distinct lower(t)), '{}') from unnest($1) t $$;

-- Everything searchable, stemmed with the english configuration (the query uses websearch_to_tsquery('english')).
create function api.agent_search_vector(name text, description text, capabilities text[], tools text[],
    langs text[], domains text[]) returns tsvector language sql immutable parallel safe as $$
  select setweight(to_tsvector('english', coalesce(name, '')), 'A') ||
         setweight(to_tsvector('english', api.join_tags(capabilities) || ' ' || api.join_tags(tools)), 'B') ||
         setweight(to_tsvector('english', coalesce(description, '')), 'C') ||
         setweight(to_tsvector('english', api.join_tags(langs) || ' ' || api.join_tags(domains)), 'D')
$$;

create table api.agent_search (
  agent_id bigint primary key,
  name text not null,
  capabilities text[] not null,
  programming_langs text[] not null,
  domains text[] not null,
  tools text[] not null,
  search tsvector not null,
  -- Agents without a reputation row score the starting 50 (uptime 0).
  score double precision not null default 50,
  uptime_percentage double precision not null default 0,
  -- At least one VERIFIED verification (the daily expiry job moves expired ones to EXPIRED).
  verified boolean not null default false
) with (fillfactor = 90);
create index agent_search_score_idx on api.agent_search (score desc, agent_id);
-- One multicolumn GIN over every text/tag filter: a single index scan intersects all of a query's conditions
-- (GIN fast scan skips through the frequent posting lists), where separate GIN indexes would make Postgres build
-- and AND one bitmap per condition (measured 1.1 s vs 33 ms for a 4-condition query at 1M agents).
create index agent_search_filters_idx on api.agent_search
  using gin (search, capabilities, programming_langs, domains, tools);
-- Typo-tolerant name matching (used when the full-text query matches nothing).
create index agent_search_name_trgm_idx on api.agent_search using gin (name gin_trgm_ops);

create function api.agent_is_verified(p_agent bigint) returns boolean language plpgsql stable as $$
begin
  if to_regclass('api.verification') is null then return false; end if;
  return exists (select 1 from api.verification v where v.agent_id = p_agent and v.status = 'VERIFIED');
end $$;

create function api.agent_search_sync_profile() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    delete from api.agent_search where agent_id = old.agent_id;
    return old;
  end if;
  insert into api.agent_search as s (agent_id, name, capabilities, programming_langs, domains, tools, search, score,
      uptime_percentage, verified)
  select new.agent_id, new.name, api.lower_tags(new.capabilities), api.lower_tags(new.programming_langs),
         api.lower_tags(new.domains), api.lower_tags(new.tools),
         api.agent_search_vector(new.name, new.description, new.capabilities, new.tools, new.programming_langs,
           new.domains),
         coalesce(r.score, 50), coalesce(r.uptime_percentage, 0), api.agent_is_verified(new.agent_id)
    from (select 1) one left join api.reputation r on r.agent_id = new.agent_id
  on conflict (agent_id) do update set name = excluded.name, capabilities = excluded.capabilities,
    programming_langs = excluded.programming_langs, domains = excluded.domains, tools = excluded.tools,
    search = excluded.search;
  return new;
end $$;
create trigger agent_search_profile after insert or update or delete on api.agent_profile
  for each row execute function api.agent_search_sync_profile();

create function api.agent_search_sync_reputation() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    update api.agent_search set score = 50, uptime_percentage = 0 where agent_id = old.agent_id;
    return old;
  end if;
  update api.agent_search set score = new.score, uptime_percentage = new.uptime_percentage
   where agent_id = new.agent_id and (score, uptime_percentage) is distinct from (new.score, new.uptime_percentage);
  return new;
end $$;
create trigger agent_search_reputation after insert or update or delete on api.reputation
  for each row execute function api.agent_search_sync_reputation();

create function api.agent_search_sync_verification() returns trigger language plpgsql as $$
declare
  v_agent bigint := case when tg_op = 'DELETE' then old.agent_id else new.agent_id end;
begin
  update api.agent_search set verified = api.agent_is_verified(v_agent)
   where agent_id = v_agent and verified is distinct from api.agent_is_verified(v_agent);
  if tg_op = 'UPDATE' and old.agent_id is distinct from new.agent_id then
    update api.agent_search set verified = api.agent_is_verified(old.agent_id) where agent_id = old.agent_id;
  end if;
  return null;
end $$;

-- api.verification comes from 021_verifications.sql; tolerate databases where it does not exist (yet).
do $$
begin
  if to_regclass('api.verification') is not null then
    create trigger agent_search_verification after insert or update or delete on api.verification
      for each row execute function api.agent_search_sync_verification();
  end if;
end $$;

-- Backfill from existing rows.
insert into api.agent_search (agent_id, name, capabilities, programming_langs, domains, tools, search, score,
    uptime_percentage, verified)
select p.agent_id, p.name, api.lower_tags(p.capabilities), api.lower_tags(p.programming_langs),
       api.lower_tags(p.domains), api.lower_tags(p.tools),
       api.agent_search_vector(p.name, p.description, p.capabilities, p.tools, p.programming_langs, p.domains),
       coalesce(r.score, 50), coalesce(r.uptime_percentage, 0), api.agent_is_verified(p.agent_id)
  from api.agent_profile p left join api.reputation r on r.agent_id = p.agent_id;
