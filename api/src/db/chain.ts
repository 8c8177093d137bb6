// The indexer's tables, as the API reads them: Ponder publishes them as views in the schema named by
// INDEXER_SCHEMA (`ponder start --views-schema`). This module is their one owner in the API: the definitions
// follow indexer/ponder.schema.ts (Ponder writes camelCase keys as snake_case columns, `t.bigint()` as
// numeric(78,0) read as a decimal string, `t.hex()` as lower-case text), and test/e2e/db-schema.test.ts checks
// them against the views Ponder created. Readers get them from `deps.views`; nobody spells the schema name.
import { bigint, boolean, getViewConfig, integer, jsonb, numeric, pgSchema, text, varchar } from "drizzle-orm/pg-core";

/** Ponder's bigint: numeric(78,0), kept a decimal string (money and ids never become JS numbers). */
const uint = (name: string) => numeric(name, { precision: 78, scale: 0 });

export function chainViews(schemaName: string) {
  const views = defineViews(schemaName);
  const names = Object.fromEntries(
    Object.entries(views).map(([key, view]) => [key, `${schemaName}.${getViewConfig(view).name}`]),
  ) as Record<keyof typeof views, string>;
  /** `names`: each view's qualified name, for the raw SQL of measured hot paths (search, budgets, checkpoints). */
  return { ...views, names };
}

function defineViews(schemaName: string) {
  const s = pgSchema(schemaName);
  return {
    agent: s
      .view("agent", {
        id: uint("id").notNull(),
        owner: text("owner").notNull(),
        wallet: text("wallet").notNull(),
        walletBound: boolean("wallet_bound").notNull(),
        metadataUri: text("metadata_uri").notNull(),
        claimed: boolean("claimed").notNull(),
        registeredAt: uint("registered_at").notNull(),
        registeredTx: text("registered_tx").notNull(),
        claimedAt: uint("claimed_at"),
        updatedAt: uint("updated_at").notNull(),
      })
      .existing(),
    stake: s
      .view("stake", {
        agentId: uint("agent_id").notNull(),
        amount: uint("amount").notNull(),
        pendingWithdrawal: uint("pending_withdrawal").notNull(),
        withdrawalAvailableAt: uint("withdrawal_available_at"),
        stakedAt: uint("staked_at"),
        lastStakeSeq: uint("last_stake_seq"),
        lastSlashSeq: uint("last_slash_seq"),
        totalSlashed: uint("total_slashed").notNull(),
        slashCount: integer("slash_count").notNull(),
        lastSlashedAt: uint("last_slashed_at"),
        trustState: text("trust_state").notNull(),
        strikes: integer("strikes").notNull(),
        trustReason: text("trust_reason"),
        trustChangedAt: uint("trust_changed_at"),
        updatedAt: uint("updated_at").notNull(),
      })
      .existing(),
    stakeEvent: s
      .view("stake_event", {
        id: text("id").notNull(),
        agentId: uint("agent_id").notNull(),
        kind: text("kind").notNull(),
        account: text("account").notNull(),
        amount: uint("amount").notNull(),
        bps: integer("bps"),
        reason: text("reason"),
        txHash: text("tx_hash").notNull(),
        blockNumber: uint("block_number").notNull(),
        timestamp: uint("timestamp").notNull(),
      })
      .existing(),
    run: s
      .view("run", {
        id: uint("id").notNull(),
        poster: text("poster").notNull(),
        reward: uint("reward").notNull(),
        fee: uint("fee").notNull(),
        deadline: uint("deadline").notNull(),
        maxRevisions: integer("max_revisions").notNull(),
        revisions: integer("revisions").notNull(),
        state: text("state").notNull(),
        agentId: uint("agent_id"),
        claimedAt: uint("claimed_at"),
        submittedAt: uint("submitted_at"),
        deliverableHash: text("deliverable_hash"),
        metadataUri: text("metadata_uri").notNull(),
        revisionRequestedAt: uint("revision_requested_at"),
        reputationEligible: boolean("reputation_eligible"),
        failedAgentId: uint("failed_agent_id"),
        failureKind: text("failure_kind"),
        requiredCoverage: uint("required_coverage"),
        createdAt: uint("created_at").notNull(),
        createdTx: text("created_tx").notNull(),
        updatedAt: uint("updated_at").notNull(),
      })
      .existing(),
    runEvent: s
      .view("run_event", {
        id: text("id").notNull(),
        runId: uint("run_id").notNull(),
        kind: text("kind").notNull(),
        state: text("state").notNull(),
        agentId: uint("agent_id"),
        actor: text("actor").notNull(),
        amount: uint("amount"),
        txHash: text("tx_hash").notNull(),
        blockNumber: uint("block_number").notNull(),
        logIndex: integer("log_index").notNull(),
        timestamp: uint("timestamp").notNull(),
      })
      .existing(),
    agentRunStats: s
      .view("agent_run_stats", {
        agentId: uint("agent_id").notNull(),
        totalClaimed: integer("total_claimed").notNull(),
        completions: integer("completions").notNull(),
        failures: integer("failures").notNull(),
        totalVolume: uint("total_volume").notNull(),
        updatedAt: uint("updated_at").notNull(),
      })
      .existing(),
    agentReward: s
      .view("agent_reward", {
        agentId: uint("agent_id").notNull(),
        unpaid: uint("unpaid").notNull(),
        totalPaid: uint("total_paid").notNull(),
        owedSince: uint("owed_since"),
        updatedAt: uint("updated_at").notNull(),
      })
      .existing(),
    reputationPair: s
      .view("reputation_pair", {
        id: text("id").notNull(),
        lastCountedAt: uint("last_counted_at").notNull(),
      })
      .existing(),
    paymentCredit: s
      .view("payment_credit", {
        id: text("id").notNull(),
        contract: text("contract").notNull(),
        account: text("account").notNull(),
        amount: uint("amount").notNull(),
        totalDeferred: uint("total_deferred").notNull(),
        totalWithdrawn: uint("total_withdrawn").notNull(),
        updatedAt: uint("updated_at").notNull(),
      })
      .existing(),
    feeSweep: s
      .view("fee_sweep", {
        id: text("id").notNull(),
        treasury: text("treasury").notNull(),
        amount: uint("amount").notNull(),
        txHash: text("tx_hash").notNull(),
        timestamp: uint("timestamp").notNull(),
      })
      .existing(),
    insuranceCoverage: s
      .view("insurance_coverage", {
        agentId: uint("agent_id").notNull(),
        amount: uint("amount").notNull(),
        pendingWithdrawal: uint("pending_withdrawal").notNull(),
        withdrawalAvailableAt: uint("withdrawal_available_at"),
        updatedAt: uint("updated_at").notNull(),
      })
      .existing(),
    insuranceEvent: s
      .view("insurance_event", {
        id: text("id").notNull(),
        agentId: uint("agent_id").notNull(),
        kind: text("kind").notNull(),
        account: text("account").notNull(),
        amount: uint("amount").notNull(),
        runId: uint("run_id"),
        txHash: text("tx_hash").notNull(),
        timestamp: uint("timestamp").notNull(),
      })
      .existing(),
    proposal: s
      .view("proposal", {
        id: text("id").notNull(),
        proposer: text("proposer").notNull(),
        description: text("description").notNull(),
        targets: jsonb("targets").notNull(),
        values: jsonb("values").notNull(),
        calldatas: jsonb("calldatas").notNull(),
        voteStart: uint("vote_start").notNull(),
        voteEnd: uint("vote_end").notNull(),
        forVotes: uint("for_votes").notNull(),
        againstVotes: uint("against_votes").notNull(),
        abstainVotes: uint("abstain_votes").notNull(),
        canceled: boolean("canceled").notNull(),
        executed: boolean("executed").notNull(),
        eta: uint("eta"),
        createdAt: uint("created_at").notNull(),
        createdTx: text("created_tx").notNull(),
      })
      .existing(),
    vote: s
      .view("vote", {
        id: text("id").notNull(),
        proposalId: text("proposal_id").notNull(),
        voter: text("voter").notNull(),
        support: integer("support").notNull(),
        weight: uint("weight").notNull(),
        reason: text("reason").notNull(),
        timestamp: uint("timestamp").notNull(),
      })
      .existing(),
    tokenHolder: s
      .view("token_holder", {
        address: text("address").notNull(),
        balance: uint("balance").notNull(),
        votes: uint("votes").notNull(),
        delegate: text("delegate"),
      })
      .existing(),
    userOperation: s
      .view("user_operation", {
        userOpHash: text("user_op_hash").notNull(),
        sender: text("sender").notNull(),
        paymaster: text("paymaster").notNull(),
        nonce: uint("nonce").notNull(),
        success: boolean("success").notNull(),
        actualGasCost: uint("actual_gas_cost").notNull(),
        actualGasUsed: uint("actual_gas_used").notNull(),
        bundler: text("bundler").notNull(),
        txHash: text("tx_hash").notNull(),
        blockNumber: uint("block_number").notNull(),
        logIndex: integer("log_index").notNull(),
        timestamp: uint("timestamp").notNull(),
      })
      .existing(),
    /** Ponder's own record of the running app; `value.heartbeat_at` (ms) is rewritten every 10 s while it runs. */
    ponderMeta: s
      .view("_ponder_meta", {
        key: text("key").notNull(),
        value: jsonb("value").notNull(),
      })
      .existing(),
    /** Ponder's progress per chain; the checkpoint string is timestamp(10) | chain id(16) | block number(16) | ... */
    ponderCheckpoint: s
      .view("_ponder_checkpoint", {
        chainName: text("chain_name").notNull(),
        chainId: bigint("chain_id", { mode: "number" }).notNull(),
        latestCheckpoint: varchar("latest_checkpoint", { length: 75 }).notNull(),
      })
      .existing(),
  };
}

export type ChainViews = ReturnType<typeof chainViews>;
/** Each indexer view's qualified name (`chain.agent`), for raw SQL. */
export type ChainNames = ChainViews["names"];
