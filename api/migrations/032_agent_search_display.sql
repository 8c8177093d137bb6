-- Search answers straight from api.agent_search: the display columns (tags as written, wallet, reputation fields)
-- live beside the filter columns, so a search is one single-table query plus a completions lookup per result row
-- (measured: the five-way join for 20 rows cost Postgres more CPU than the search itself).
alter table api.agent_search
  add column wallet_address text,
  add column display_capabilities text[] not null default '{}',
  add column display_programming_langs text[] not null default '{}',
  add column display_domains text[] not null default '{}',
  add column display_tools text[] not null default '{}',
  add column avg_response_time_ms double precision not null default 0,
  add column attestation_count integer not null default 0,
  add column attestation_score double precision not null default 0,
  add column verification_badges text[] not null default '{}';

create or replace function api.agent_search_sync_profile() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    delete from api.agent_search where agent_id = old.agent_id;
    return old;
  end if;
  insert into api.agent_search as s (agent_id, name, capabilities, programming_langs, domains, tools, search, score,
      uptime_percentage, verified, wallet_address, display_capabilities, display_programming_langs, display_domains,
      display_tools, avg_response_time_ms, attestation_count, attestation_score, verification_badges)
  select new.agent_id, new.name, api.lower_tags(new.capabilities), api.lower_tags(new.programming_langs),
         api.lower_tags(new.domains), api.lower_tags(new.tools),
         api.agent_search_vector(new.name, new.description, new.capabilities, new.tools, new.programming_langs,
           new.domains),
         coalesce(r.score, 50), coalesce(r.uptime_percentage, 0), api.agent_is_verified(new.agent_id),
         (select w.wallet_address from api.agent_wallet w where w.agent_id = new.agent_id),
         new.capabilities, new.programming_langs, new.domains, new.tools,
         coalesce(r.avg_response_time_ms, 0), coalesce(r.attestation_count, 0), coalesce(r.attestation_score, 0),
         coalesce(r.verification_badges, '{}')
    from (select 1) one left join api.reputation r on r.agent_id = new.agent_id
  on conflict (agent_id) do update set name = excluded.name, capabilities = excluded.capabilities,
    programming_langs = excluded.programming_langs, domains = excluded.domains, tools = excluded.tools,
    search = excluded.search, display_capabilities = excluded.display_capabilities,
    display_programming_langs = excluded.display_programming_langs, display_domains = excluded.display_domains,
    display_tools = excluded.display_tools, wallet_address = coalesce(excluded.wallet_address, s.wallet_address);
  return new;
end $$;

create or replace function api.agent_search_sync_reputation() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    update api.agent_search set score = 50, uptime_percentage = 0, avg_response_time_ms = 0, attestation_count = 0,
      attestation_score = 0, verification_badges = '{}'
     where agent_id = old.agent_id;
    return old;
  end if;
  update api.agent_search set score = new.score, uptime_percentage = new.uptime_percentage,
      avg_response_time_ms = new.avg_response_time_ms, attestation_count = new.attestation_count,
      attestation_score = new.attestation_score, verification_badges = new.verification_badges
   where agent_id = new.agent_id
     and (score, uptime_percentage, avg_response_time_ms, attestation_count, attestation_score, verification_badges)
         is distinct from (new.score, new.uptime_percentage, new.avg_response_time_ms, new.attestation_count,
                           new.attestation_score, new.verification_badges);
  return new;
end $$;

-- The wallet row gets its agent id after the mint (register.ts); profiles normally follow, but keep both orders.
create function api.agent_search_sync_wallet() returns trigger language plpgsql as $$
begin
  if new.agent_id is not null then
    update api.agent_search set wallet_address = new.wallet_address
     where agent_id = new.agent_id and wallet_address is distinct from new.wallet_address;
  end if;
  return null;
end $$;
create trigger agent_search_wallet after insert or update of agent_id, wallet_address on api.agent_wallet
  for each row execute function api.agent_search_sync_wallet();

-- Backfill the new columns.
update api.agent_search s set
  display_capabilities = p.capabilities, display_programming_langs = p.programming_langs,
  display_domains = p.domains, display_tools = p.tools
  from api.agent_profile p where p.agent_id = s.agent_id;
update api.agent_search s set wallet_address = w.wallet_address
  from api.agent_wallet w where w.agent_id = s.agent_id;
update api.agent_search s set avg_response_time_ms = r.avg_response_time_ms, attestation_count = r.attestation_count,
    attestation_score = r.attestation_score, verification_badges = r.verification_badges
  from api.reputation r where r.agent_id = s.agent_id;
