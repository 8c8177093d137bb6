-- Registrations are minted in batches (AgentIdentity.mintBatch, one transaction for a burst). Before a batch is sent,
-- each wallet records the batch's relayer idempotency key and its position in it, so a retried registration resumes
-- the same transaction (the relayer answers the first one) instead of minting a second agent.
alter table api.agent_wallet add column mint_key text;
alter table api.agent_wallet add column mint_position integer;
-- Until a wallet is in a batch, one request attempt holds its mint (a fencing token with an expiry): a retry waits
-- for it, and takes the mint over only once the lease has expired (its holder died or gave up); the old holder can
-- then no longer put the wallet in a batch.
alter table api.agent_wallet add column mint_lease uuid;
alter table api.agent_wallet add column mint_lease_until timestamptz;
-- Unminted rows from before batching were sent with `mint` under the key 'register:<wallet>': resume them that way.
update api.agent_wallet set mint_key = 'register:' || wallet_address, mint_position = -1
 where agent_id is null and mint_uri is not null;
