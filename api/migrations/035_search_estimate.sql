-- Search totals without EXPLAIN: when the walk answers (more matches than the page), the total is estimated from
-- the same shares as the walk gate plus the share of agents at or above minScore, times the table's row count
-- (pg_class.reltuples, kept by ANALYZE). One function call inside the page query instead of a planning round trip
-- per distinct filter set; like the planner's estimate it assumes the filters are independent.
create or replace function api.refresh_search_shares() returns integer language plpgsql as $$
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
