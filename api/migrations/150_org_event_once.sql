-- Organization events happen once. An emitter may name its event (say "bounty.completed:run:12"); a second
-- emission under the same name for the same organization writes nothing, so retries and racing paths cannot
-- deliver an event twice.
alter table api.org_event add column dedupe_key text;
create unique index org_event_dedupe_idx on api.org_event (org_id, dedupe_key) where dedupe_key is not null;

-- The organizations a run belongs to: those of the agents its poster speaks for (an agent's wallet or its token's
-- owner), fixed when the run goes on chain, one agent per organization. bounty.created and bounty.completed go to
-- these organizations, whoever later claims or completes the run.
create table api.run_org (
  run_id bigint not null references api.run (id),
  org_id text not null references api.organization (id) on delete cascade,
  agent_id bigint not null,
  created_at timestamptz not null default now(),
  primary key (run_id, org_id)
);
create index run_org_org_idx on api.run_org (org_id);
