-- Member credentials (docs/decisions.md, "Organization roles"): each team member gets an API key of their own
-- (`ah_member_...`), stored like the organization's keys (SHA-256 only) and acting with the member's role. Removing
-- the member removes the key.
alter table api.org_credential drop constraint org_credential_kind_check;
alter table api.org_credential add constraint org_credential_kind_check
  check (kind in ('live', 'test', 'secret', 'member'));
alter table api.org_credential add column member_id text references api.org_member (id) on delete cascade;
alter table api.org_credential add constraint org_credential_member_check check ((kind = 'member') = (member_id is not null));
create index org_credential_member_idx on api.org_credential (member_id) where member_id is not null;
