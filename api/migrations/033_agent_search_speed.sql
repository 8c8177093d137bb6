-- The search's first pass walks the best agents by score and filters them (api/src/routes/intelligence/
-- search-query.ts). With every filter column in the index it is an index-only scan: sequential leaf pages instead
-- of one random heap page per agent (measured at 1M agents: 8,259 rows in 4.7 ms instead of 33 ms). It replaces
-- the plain score index (same key order).
create index agent_search_walk_idx on api.agent_search (score desc, agent_id)
  include (verified, uptime_percentage, capabilities, programming_langs, domains, tools, search);
drop index api.agent_search_score_idx;

-- verifiedOnly searches (5% of agents at the benchmark's mix) get their own small GIN and score indexes, so a
-- selective verified search intersects posting lists of verified agents only (measured at 1M agents: 0.9 ms
-- instead of 40 ms through the full GIN).
create index agent_search_verified_filters_idx on api.agent_search
  using gin (search, capabilities, programming_langs, domains, tools) where verified;
create index agent_search_verified_score_idx on api.agent_search (score desc, agent_id) where verified;

-- Every statement that changes the search index tells the API processes, which empty their search caches
-- (api/src/routes/intelligence/search-cache.ts). NOTIFY folds repeats within a transaction into one.
create function api.agent_search_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('agenthub_search', '');
  return null;
end $$;
create trigger agent_search_changed after insert or update or delete or truncate on api.agent_search
  for each statement execute function api.agent_search_notify();

-- Index-only scans skip the heap only on all-visible pages: vacuum this table early so they stay that way.
alter table api.agent_search set (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02);

-- Whether the first pass (the score walk) can pay off: filters that keep a share p of the agents leave about
-- p x SCORE_WALK_ROWS matches in the walk. The shares of the commonest lexemes and tags come from ANALYZE
-- (pg_stats, with a larger sample for the tsvector), the verified share likewise, and the shares of agents at or
-- above each whole uptime and score percentage from a 10% sample, into a small table refreshed by the search-stats
-- job; reading pg_stats per request costs milliseconds, this table microseconds. Like the planner, the estimate
-- multiplies independent shares; unlike the planner's, a wrong guess only costs the walk (bounded), never a 100x
-- plan.
alter table api.agent_search alter column search set statistics 1000;
-- key: 'w:<lexeme>', 'cap:<tag>', 'lang:<tag>', 'dom:<tag>', 'tool:<tag>', 'verified', 'uptime:<0-100>',
-- 'score:<0-100>'.
create table api.search_share (key text primary key, share real not null);

create function api.refresh_search_shares() returns integer language plpgsql as $$
declare
  n integer;
begin
  delete from api.search_share;
  insert into api.search_share (key, share)
  select p.prefix || e.elem, e.share
    from pg_stats s
    join (values ('search', 'w:'), ('capabilities', 'cap:'), ('programming_langs', 'lang:'), ('domains', 'dom:'),
                 ('tools', 'tool:')) p(col, prefix) on p.col = s.attname,
         unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) with ordinality e(elem, share, i)
   where s.schemaname = 'api' and s.tablename = 'agent_search'
     and e.i <= cardinality(s.most_common_elems::text::text[])
  on conflict do nothing;
  insert into api.search_share (key, share)
  select 'verified', coalesce((select v.share from unnest(s.most_common_vals::text::boolean[], s.most_common_freqs)
                                 v(val, share) where v.val), 0)
    from pg_stats s where s.schemaname = 'api' and s.tablename = 'agent_search' and s.attname = 'verified';
  insert into api.search_share (key, share)
  select k.prefix || b, coalesce(avg(case when k.prefix = 'uptime:' then (u.uptime_percentage >= b)::int
                                          else (u.score >= b)::int end), 1)
    from generate_series(0, 100) b
    cross join (values ('uptime:'), ('score:')) k(prefix)
    left join (select uptime_percentage, score from api.agent_search tablesample bernoulli (10)) u on true
   group by k.prefix, b;
  select count(*) into n from api.search_share;
  return n;
end $$;

-- The estimated share of agents passing the text, tag, verified and uptime filters (a lexeme or tag missing from
-- the table is rarer than the rarest listed: ~0); 1 before the first refresh, so the walk is tried.
create function api.search_walk_share(q text, caps text[], langs text[], doms text[], tools text[],
    verified_only boolean, min_uptime double precision) returns real language sql stable parallel safe as $$
  with s(key, share) as (select key, share from api.search_share)
  select case when not exists (select 1 from s) then 1 else (
    coalesce((select exp(sum(ln(greatest(coalesce(s.share, 0), 1e-9))))
                from unnest(tsvector_to_array(to_tsvector('english', coalesce(q, '')))) t
                left join s on s.key = 'w:' || t), 1)
    * coalesce((select exp(sum(ln(greatest(coalesce(s.share, 0), 1e-9))))
                  from unnest(caps) t left join s on s.key = 'cap:' || t), 1)
    * coalesce((select exp(sum(ln(greatest(coalesce(s.share, 0), 1e-9))))
                  from unnest(tools) t left join s on s.key = 'tool:' || t), 1)
    * coalesce((select least(1, sum(coalesce(s.share, 0))) from unnest(langs) t left join s on s.key = 'lang:' || t
                 having count(*) > 0), 1)
    * coalesce((select least(1, sum(coalesce(s.share, 0))) from unnest(doms) t left join s on s.key = 'dom:' || t
                 having count(*) > 0), 1)
    * case when verified_only then coalesce((select s.share from s where s.key = 'verified'), 1) else 1 end
    * case when min_uptime is null then 1
           else coalesce((select s.share from s where s.key = 'uptime:' || least(100, floor(min_uptime))::int), 1) end
  ) end::real
$$;

-- Search totals without EXPLAIN: when the walk answers (more matches than the page), the total is these shares
-- and the share at or above minScore times the table's row count (pg_class.reltuples, kept by ANALYZE); null
-- before the first refresh (the API then asks the planner).
create function api.search_estimate(q text, caps text[], langs text[], doms text[], tools text[],
    verified_only boolean, min_uptime double precision, min_score double precision) returns bigint
    language sql stable parallel safe as $$
  select case when not exists (select 1 from api.search_share) then null else round(
      api.search_walk_share(q, caps, langs, doms, tools, verified_only, min_uptime)
      * case when min_score is null then 1
             else coalesce((select s.share from api.search_share s
                             where s.key = 'score:' || least(100, floor(min_score))::int), 1) end
      * greatest((select c.reltuples from pg_class c where c.oid = 'api.agent_search'::regclass), 0))::bigint end
$$;
