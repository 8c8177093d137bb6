-- Open-ended subscriptions ("weekly", "every Monday at 9:00 UTC"): no run count, they run until the prepaid
-- balance is spent or the subscriber cancels. total_runs is null for them.
alter table api.subscription alter column total_runs drop not null;
-- 060's check on runs_created references total_runs (Postgres named it after the table): replace it.
do $$
declare c text;
begin
  for c in
    select conname from pg_constraint
     where conrelid = 'api.subscription'::regclass and contype = 'c'
       and pg_get_constraintdef(oid) like '%runs_created%'
  loop
    execute format('alter table api.subscription drop constraint %I', c);
  end loop;
end $$;
alter table api.subscription
  add constraint subscription_runs_created_check
  check (runs_created >= 0 and (total_runs is null or runs_created <= total_runs));
