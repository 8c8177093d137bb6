-- Seeds :n synthetic agents straight into the API's tables (profile, wallet, reputation, verifications) and the
-- search index, in a few set-based statements. Tag popularity is skewed (power-law-ish) so some terms are common and
-- some rare; every description carries one of 20,000 rare keywords ("kw<number>", ~n/20000 agents each).
-- psql: psql -v n=1000000 -f bench/seed-agents.sql, then vacuum analyze (bench/search.ts runs the same file).
select setseed(0.4242);

create temporary table vocab as select
  array['coding','research','writing','data-analysis','testing','code-review','translation','summarization',
        'design','devops','security-audit','trading','customer-support','scraping','image-generation',
        'video-editing','legal-review','tax-filing','tutoring','scheduling','forecasting','negotiation',
        'music-composition','bug-bounty','smart-contracts','3d-modeling','speech-to-text','robotics',
        'genomics','chess'] caps,
  array['python','typescript','javascript','rust','go','java','solidity','c++','ruby','kotlin','swift','haskell',
        'elixir','scala','zig','ocaml','julia','r','php','lua'] langs,
  array['finance','defi','healthcare','gaming','legal','education','ecommerce','media','logistics','energy',
        'biotech','insurance','real-estate','travel','agriculture','aerospace','government','sports','music',
        'fashion'] domains,
  array['git','docker','github','postgres','kubernetes','slack','jira','figma','notion','aws','gcp','terraform',
        'redis','kafka','airflow','pytorch','tensorflow','langchain','foundry','hardhat'] tools,
  array['swift','brave','quiet','clever','rapid','silent','lucky','bold','calm','eager','fuzzy','gentle','happy',
        'jolly','keen','mighty','noble','proud','sharp','witty'] adjectives,
  array['falcon','otter','lynx','badger','heron','panda','tiger','raven','cobra','wolf','fox','eagle','bison',
        'gecko','koala','llama','moose','owl','shark','yak'] nouns;

-- pick(arr, skew): an element, low indexes more likely (skew 1 = uniform, 2-3 = heavy head).
create function pg_temp.pick(arr text[], skew float8) returns text language sql volatile as
  $$ select arr[1 + floor(power(random(), skew) * array_length(arr, 1))::int] $$;
create function pg_temp.picks(arr text[], skew float8, k int) returns text[] language sql volatile as
  $$ select coalesce(array_agg(distinct pg_temp.pick(arr, skew)), '{}') from generate_series(1, k) $$;

set session_replication_role = replica; -- skip the search-index triggers; the index is built in one pass below

insert into api.reputation (agent_id, score, success_rate, uptime_percentage, avg_response_time_ms,
    attestation_count, attestation_score, verification_badges)
select i, round((100 * power(random(), 0.8))::numeric, 2), random(), round((40 + 60 * power(random(), 0.3))::numeric, 2),
       round((50 + 900 * random())::numeric, 1), (random() * 20)::int, round((5 * random())::numeric, 2),
       case when i % 20 = 0 then array['domain-verified'] else '{}' end
  from generate_series(1, :n) i;

insert into api.verification (agent_id, type, status, domain, badge, created_at, verified_at, expires_at)
select i, 'domain', 'VERIFIED', 'agent' || i || '.example', 'domain-verified', now(), now(), now() + interval '1 year'
  from generate_series(20, :n, 20) i;

insert into api.agent_wallet (wallet_address, agent_id, claim_code_hash, claim_expires_at, claim_state)
select '0x' || lpad(to_hex(i), 40, '0'), i, md5('seed' || i), now() + interval '30 days', 'CLAIMED'
  from generate_series(1, :n) i;

insert into api.agent_profile (agent_id, name, description, capabilities, programming_langs, domains, tools,
    metadata_cid)
select i, name,
       'Agent ' || name || ' does ' || array_to_string(caps, ' and ') || ' for ' || array_to_string(doms, ', ') ||
         ' teams in ' || array_to_string(langs, ', ') || '. Keyword kw' || (hashint4(i) & 32767) % 20000 || '.',
       caps, langs, doms, tools, 'bafkreiseed' || i
  from (
    select i, pg_temp.pick(v.adjectives, 1) || '-' || pg_temp.pick(v.nouns, 1) || '-' || i as name,
           pg_temp.picks(v.caps, 2.5, 1 + i % 3) caps, pg_temp.picks(v.langs, 2.5, 1 + i % 3) langs,
           pg_temp.picks(v.domains, 2.5, 1 + i % 2) doms, pg_temp.picks(v.tools, 2.5, 1 + i % 4) tools
      from generate_series(1, :n) i, vocab v
  ) g;

set session_replication_role = origin;

insert into api.agent_search (agent_id, name, capabilities, programming_langs, domains, tools, search, score,
    uptime_percentage, verified, wallet_address, display_capabilities, display_programming_langs, display_domains,
    display_tools, avg_response_time_ms, attestation_count, attestation_score, verification_badges)
select p.agent_id, p.name, api.lower_tags(p.capabilities), api.lower_tags(p.programming_langs),
       api.lower_tags(p.domains), api.lower_tags(p.tools),
       api.agent_search_vector(p.name, p.description, p.capabilities, p.tools, p.programming_langs, p.domains),
       coalesce(r.score, 50), coalesce(r.uptime_percentage, 0), p.agent_id % 20 = 0, w.wallet_address,
       p.capabilities, p.programming_langs, p.domains, p.tools, coalesce(r.avg_response_time_ms, 0),
       coalesce(r.attestation_count, 0), coalesce(r.attestation_score, 0), coalesce(r.verification_badges, '{}')
  from api.agent_profile p
  left join api.reputation r on r.agent_id = p.agent_id
  left join api.agent_wallet w on w.agent_id = p.agent_id
  where p.agent_id between 1 and :n
on conflict (agent_id) do nothing;
