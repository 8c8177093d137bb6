-- Paid peer reviews. Permanent and public; one per (attestor, subject, category).
create table api.attestation (
  id bigserial primary key,
  attestor_id bigint not null,
  subject_id bigint not null,
  category text not null check (category in ('quality', 'reliability', 'communication', 'expertise')),
  rating smallint not null check (rating between 1 and 5),
  comment text,
  weight double precision not null,
  attestor_score double precision not null, -- the attestor's reputation the weight was taken from
  payer text not null,
  payment_nonce text,
  created_at timestamptz not null default now(),
  unique (attestor_id, subject_id, category),
  check (attestor_id <> subject_id)
);
create index attestation_subject_idx on api.attestation (subject_id);
create index attestation_attestor_idx on api.attestation (attestor_id);
