-- Reports API (supplement): the core's api.agent_report gains the signed reporter, an optional bounty, the chain time
-- of filing and the admin's resolution, so POST /api/agents/:id/report (anonymous, per IP) and POST
-- /api/reports/create (signed) share one table and one category vocabulary (column "reason").
alter table api.agent_report
  add column reporter_address text,            -- lower-case signer; null for the core's anonymous reports
  add column bounty_id bigint,                 -- api.run id the report is about (optional)
  add column filed_at bigint,                  -- chain time (unix seconds) at filing; null for older rows
  add column resolved_at timestamptz,
  add column resolved_by text,                 -- 'admin'
  add column resolution_note text;

alter table api.agent_report
  add constraint agent_report_status_check check (status in ('PENDING', 'CONFIRMED', 'DISMISSED'));

-- One open (PENDING) report per (reporter, subject, category): concurrent duplicates lose on this index.
create unique index agent_report_open_uniq on api.agent_report (reporter_address, agent_id, reason)
  where status = 'PENDING' and reporter_address is not null;
create index agent_report_reporter_idx on api.agent_report (reporter_address, id desc)
  where reporter_address is not null;
