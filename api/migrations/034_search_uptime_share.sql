-- The walk gate (033) also weighs minUptime: the share of agents at or above each whole uptime percentage,
-- sampled by the search-stats job (a 10% sample is within a fraction of a percent at any size that matters).
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
  select 'uptime:' || b, coalesce(avg((u.uptime_percentage >= b)::int), 1)
    from generate_series(0, 100) b
    left join (select uptime_percentage from api.agent_search tablesample bernoulli (10)) u on true
   group by b;
  select count(*) into n from api.search_share;
  return n;
end $$;

drop function api.search_walk_share(text, text[], text[], text[], text[], boolean);
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
