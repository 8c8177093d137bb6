-- A run's cover (agreed damages insurance pays after a verified failure) as the poster declared it in its draft.
-- The InsurancePool holds the one that counts once the poster signed it for the funded run (POST /api/runs/:id/cover);
-- until then the API does not let agents claim the run.
alter table api.run add column declared_coverage numeric(78, 0);
