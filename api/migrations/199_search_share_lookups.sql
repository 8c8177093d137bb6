-- The gate of the search's score walk (api.search_walk_share, 033_agent_search_speed.sql), two changes:
-- 1. Speed: it read api.search_share through a CTE that every term, tag and filter then joined; with parameters (the
--    search pool's generic plans) a call took ~0.9 ms at 1M agents (881 share rows), and a walk statement calls it
--    twice (the gate and api.search_estimate): ~1.9 ms of a combined-filters search's ~9 ms in Postgres. Now one
--    primary-key lookup per term or tag: ~0.2 ms a call, same arithmetic.
-- 2. A query word that a required tag already implies is not counted twice. The search vector holds the tags' own
--    words (api.agent_search_vector), so capabilities @> {writing} implies the lexeme 'write', and a lone
--    programming language or domain likewise; multiplying the word's share by the tag's share made "writing" with
--    capability "writing" look 9x rarer than it is, skipped the walk that would have answered in ~3 ms and sent it
--    to the GIN pass, which fetched and counted all ~5,300 matches (~45 ms). Such a word now counts as share 1.
--    The total shown when the walk answers (api.search_estimate) is the same product, so it gets closer too.
create or replace function api.search_walk_share(q text, caps text[], langs text[], doms text[], tools text[],
    verified_only boolean, min_uptime double precision) returns real language sql stable parallel safe as $$
  select case when not exists (select 1 from api.search_share) then 1 else (
    coalesce((select exp(sum(ln(greatest(coalesce((select s.share from api.search_share s where s.key = 'w:' || t), 0),
                                         1e-9))))
                from unnest(tsvector_to_array(to_tsvector('english', coalesce(q, '')))) t
               -- the lexemes every matching agent has through its tags (all-of lists, and any-of lists of one tag)
               where not t = any (tsvector_to_array(to_tsvector('english', concat_ws(' ', array_to_string(caps, ' '),
                       array_to_string(tools, ' '), case when cardinality(langs) = 1 then langs[1] end,
                       case when cardinality(doms) = 1 then doms[1] end))))), 1)
    * coalesce((select exp(sum(ln(greatest(coalesce((select s.share from api.search_share s where s.key = 'cap:' || t),
                                                    0), 1e-9))))
                  from unnest(caps) t), 1)
    * coalesce((select exp(sum(ln(greatest(coalesce((select s.share from api.search_share s where s.key = 'tool:' || t),
                                                    0), 1e-9))))
                  from unnest(tools) t), 1)
    * coalesce((select least(1, sum(coalesce((select s.share from api.search_share s where s.key = 'lang:' || t), 0)))
                  from unnest(langs) t having count(*) > 0), 1)
    * coalesce((select least(1, sum(coalesce((select s.share from api.search_share s where s.key = 'dom:' || t), 0)))
                  from unnest(doms) t having count(*) > 0), 1)
    * case when verified_only then coalesce((select s.share from api.search_share s where s.key = 'verified'), 1)
           else 1 end
    * case when min_uptime is null then 1
           else coalesce((select s.share from api.search_share s
                           where s.key = 'uptime:' || least(100, floor(min_uptime))::int), 1) end
  ) end::real
$$;
