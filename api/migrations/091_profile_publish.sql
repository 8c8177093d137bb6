-- Relayed profile writes (setTokenURI) per agent: when the last one was sent, and since when a newer profile waits
-- to be published (rapid updates are coalesced into one transaction per window).
create table api.profile_publish (
  agent_id bigint primary key,
  last_sent_at timestamptz not null,
  pending_since timestamptz
);
create index profile_publish_pending_idx on api.profile_publish (pending_since) where pending_since is not null;
