-- Only tables whose rows the cached answers show announce changes (api/src/stores/read-cache.ts). A transaction that
-- sends NOTIFY takes Postgres's notification-queue lock at commit, so notifying commits are serialized: the wallet
-- rows (written three times per registration, never shown by a cached answer) and stored objects (a deliverable is
-- stored before the submit step records its run_action row, which announces it) stay quiet.
drop trigger agent_reads_changed on api.agent_wallet;
drop trigger run_reads_changed on api.ipfs_object;
