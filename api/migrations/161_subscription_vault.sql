-- Prepaid balances live in the SubscriptionVault contract, escrowed per subscriber (no longer in the relayer's
-- wallet): each row mirrors vault subscription `vault_id`. Cancelling and completing refund the unspent balance
-- to the subscriber on chain (`refunded`, ledger kind 'refund'); nothing is forfeited any more.
alter table api.subscription add column vault_id bigint unique;
alter table api.subscription add column refunded numeric(78, 0) not null default 0;
alter table api.subscription_ledger drop constraint subscription_ledger_kind_check;
alter table api.subscription_ledger
  add constraint subscription_ledger_kind_check check (kind in ('fund', 'topup', 'run', 'forfeit', 'refund'));
