// Tables derived only from contract events. Readers (API) see them through the views schema.
import { index, onchainTable } from "ponder";

export const agent = onchainTable(
  "agent",
  (t) => ({
    id: t.bigint().primaryKey(),
    /** Current token owner (moves on claim and any later transfer). */
    owner: t.hex().notNull(),
    /** The wallet the service generated and minted to. */
    wallet: t.hex().notNull(),
    /**
     * Whether `wallet` still speaks for the agent: true while every transfer of the token came from it (the mint to
     * it, the claim from it); the first transfer by anyone else (a sale, a gift) ends the binding for good, so the
     * generated key, which the claimant received, stops acting for the token's new owner.
     */
    walletBound: t.boolean().notNull(),
    metadataUri: t.text().notNull(),
    claimed: t.boolean().notNull(),
    registeredAt: t.bigint().notNull(),
    registeredTx: t.hex().notNull(),
    claimedAt: t.bigint(),
    updatedAt: t.bigint().notNull(),
  }),
  (table) => ({ ownerIdx: index().on(table.owner), walletIdx: index().on(table.wallet) }),
);

export const stake = onchainTable("stake", (t) => ({
  agentId: t.bigint().primaryKey(),
  amount: t.bigint().notNull(),
  pendingWithdrawal: t.bigint().notNull(),
  withdrawalAvailableAt: t.bigint(),
  /** When the stake last went from below to at least the minimum (drives the 30-day ESTABLISHED rule). */
  stakedAt: t.bigint(),
  /** Order (block * 1e6 + log index) of the latest deposit and slash: a deposit after a slash lifts FROZEN. */
  lastStakeSeq: t.bigint(),
  lastSlashSeq: t.bigint(),
  totalSlashed: t.bigint().notNull(),
  slashCount: t.integer().notNull(),
  lastSlashedAt: t.bigint(),
  /** The vault's trust state (TrustStateChanged): Good, Frozen (slashed, until staked back to the minimum), Banned. */
  trustState: t.text().notNull(),
  /** Slashes counted by the vault; the third bans. */
  strikes: t.integer().notNull(),
  trustReason: t.text(),
  trustChangedAt: t.bigint(),
  updatedAt: t.bigint().notNull(),
}));

export const stakeEvent = onchainTable(
  "stake_event",
  (t) => ({
    id: t.text().primaryKey(),
    agentId: t.bigint().notNull(),
    kind: t.text().notNull(), // STAKED | SLASHED | WITHDRAWAL_REQUESTED | WITHDRAWN | TRUST_STATE
    account: t.hex().notNull(), // depositor, beneficiary or recipient
    amount: t.bigint().notNull(),
    bps: t.integer(),
    reason: t.text(),
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({ agentIdx: index().on(table.agentId), txIdx: index().on(table.txHash) }),
);

export const run = onchainTable(
  "run",
  (t) => ({
    id: t.bigint().primaryKey(),
    poster: t.hex().notNull(),
    reward: t.bigint().notNull(),
    fee: t.bigint().notNull(),
    deadline: t.bigint().notNull(),
    maxRevisions: t.integer().notNull(),
    revisions: t.integer().notNull(),
    /** Escrow contract state name: Open, Claimed, InProgress, Submitted, RevisionRequested, Disputed, Completed, Rejected, Cancelled, TimedOut. */
    state: t.text().notNull(),
    agentId: t.bigint(),
    claimedAt: t.bigint(),
    submittedAt: t.bigint(),
    deliverableHash: t.hex(),
    metadataUri: t.text().notNull(),
    /** When the poster last asked for a revision: the agent must resubmit within the revision timeout. */
    revisionRequestedAt: t.bigint(),
    /** Whether the current claim counts toward the agent's reputation (see indexer/src/reputation-rule.ts). */
    reputationEligible: t.boolean(),
    failedAgentId: t.bigint(),
    /** How the agent last failed the run: Rejected, TimedOut or DisputeLost (only the last two are insurable). */
    failureKind: t.text(),
    /** The cover (agreed damages) the poster declared in the InsurancePool; null when none. */
    requiredCoverage: t.bigint(),
    createdAt: t.bigint().notNull(),
    createdTx: t.hex().notNull(),
    updatedAt: t.bigint().notNull(),
  }),
  (table) => ({
    stateIdx: index().on(table.state),
    posterIdx: index().on(table.poster),
    agentIdx: index().on(table.agentId),
  }),
);

export const runEvent = onchainTable(
  "run_event",
  (t) => ({
    id: t.text().primaryKey(),
    runId: t.bigint().notNull(),
    kind: t.text().notNull(),
    state: t.text().notNull(),
    agentId: t.bigint(),
    /** Who acted: the transaction's sender, or the UserOperation's sender (smart account, 7702 EOA) for a bundled one. */
    actor: t.hex().notNull(),
    amount: t.bigint(),
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    runIdx: index().on(table.runId),
    txIdx: index().on(table.txHash),
    // The API's bounty-event poll reads run events in chain order after a cursor.
    orderIdx: index().on(table.blockNumber, table.logIndex),
  }),
);

/** Inputs of the success rate: runs claimed, completed and failed per agent, and paid volume. */
export const agentRunStats = onchainTable("agent_run_stats", (t) => ({
  agentId: t.bigint().primaryKey(),
  totalClaimed: t.integer().notNull(),
  completions: t.integer().notNull(),
  failures: t.integer().notNull(),
  totalVolume: t.bigint().notNull(),
  updatedAt: t.bigint().notNull(),
}));

/** Rewards of approved runs per agent: credited by RunCompleted, paid to the agent's owner by RunEscrow.payRewards. */
export const agentReward = onchainTable(
  "agent_reward",
  (t) => ({
    agentId: t.bigint().primaryKey(),
    /** Approved and not yet paid (RunEscrow.rewardsOf). */
    unpaid: t.bigint().notNull(),
    totalPaid: t.bigint().notNull(),
    /** When `unpaid` last rose from zero: the payout job pays the longest-waiting agents first. */
    owedSince: t.bigint(),
    updatedAt: t.bigint().notNull(),
  }),
  (table) => ({ owedSinceIdx: index().on(table.owedSince) }),
);

/** The last claim between a poster and an agent that counted toward the agent's reputation (one per day). */
export const reputationPair = onchainTable("reputation_pair", (t) => ({
  id: t.text().primaryKey(), // `${poster}:${agentId}`
  lastCountedAt: t.bigint().notNull(),
}));

/** Payments that failed (e.g. a USDC-blacklisted recipient) and wait in a contract for `withdrawCredit`. */
export const paymentCredit = onchainTable(
  "payment_credit",
  (t) => ({
    id: t.text().primaryKey(), // `${contract}:${account}`
    contract: t.text().notNull(), // RunEscrow | StakeVault
    account: t.hex().notNull(),
    amount: t.bigint().notNull(),
    totalDeferred: t.bigint().notNull(),
    totalWithdrawn: t.bigint().notNull(),
    updatedAt: t.bigint().notNull(),
  }),
  (table) => ({ accountIdx: index().on(table.account) }),
);

/** Accrued platform fees sent to the treasury by RunEscrow.sweepFees. */
export const feeSweep = onchainTable("fee_sweep", (t) => ({
  id: t.text().primaryKey(),
  treasury: t.hex().notNull(),
  amount: t.bigint().notNull(),
  txHash: t.hex().notNull(),
  timestamp: t.bigint().notNull(),
}));

export const insuranceCoverage = onchainTable("insurance_coverage", (t) => ({
  agentId: t.bigint().primaryKey(),
  amount: t.bigint().notNull(),
  pendingWithdrawal: t.bigint().notNull(),
  withdrawalAvailableAt: t.bigint(),
  updatedAt: t.bigint().notNull(),
}));

export const insuranceEvent = onchainTable(
  "insurance_event",
  (t) => ({
    id: t.text().primaryKey(),
    agentId: t.bigint().notNull(),
    kind: t.text().notNull(), // STAKED | WITHDRAWAL_REQUESTED | WITHDRAWN | CLAIM_PAID
    account: t.hex().notNull(),
    amount: t.bigint().notNull(),
    runId: t.bigint(),
    txHash: t.hex().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    agentIdx: index().on(table.agentId),
    runIdx: index().on(table.runId),
    txIdx: index().on(table.txHash),
  }),
);

export const proposal = onchainTable("proposal", (t) => ({
  id: t.text().primaryKey(),
  proposer: t.hex().notNull(),
  description: t.text().notNull(),
  targets: t.jsonb().notNull(),
  values: t.jsonb().notNull(),
  calldatas: t.jsonb().notNull(),
  voteStart: t.bigint().notNull(),
  voteEnd: t.bigint().notNull(),
  forVotes: t.bigint().notNull(),
  againstVotes: t.bigint().notNull(),
  abstainVotes: t.bigint().notNull(),
  canceled: t.boolean().notNull(),
  executed: t.boolean().notNull(),
  eta: t.bigint(),
  createdAt: t.bigint().notNull(),
  createdTx: t.hex().notNull(),
}));

export const vote = onchainTable(
  "vote",
  (t) => ({
    id: t.text().primaryKey(),
    proposalId: t.text().notNull(),
    voter: t.hex().notNull(),
    support: t.integer().notNull(),
    weight: t.bigint().notNull(),
    reason: t.text().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({ proposalIdx: index().on(table.proposalId) }),
);

export const tokenHolder = onchainTable("token_holder", (t) => ({
  address: t.hex().primaryKey(),
  balance: t.bigint().notNull(),
  votes: t.bigint().notNull(),
  delegate: t.hex(),
}));

/** UserOperations AgentHub's paymaster sponsored (EntryPoint UserOperationEvent), with what they cost it. */
export const userOperation = onchainTable(
  "user_operation",
  (t) => ({
    userOpHash: t.hex().primaryKey(),
    sender: t.hex().notNull(),
    paymaster: t.hex().notNull(),
    nonce: t.bigint().notNull(),
    success: t.boolean().notNull(),
    actualGasCost: t.bigint().notNull(),
    actualGasUsed: t.bigint().notNull(),
    /** The bundler's executor that sent the transaction (never the actor). */
    bundler: t.hex().notNull(),
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({ senderIdx: index().on(table.sender, table.nonce) }),
);
