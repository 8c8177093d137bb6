import { type Context, ponder } from "ponder:registry";
import { proposal, tokenHolder, vote } from "ponder:schema";
import { zeroAddress } from "viem";

ponder.on("AgentHubGovernor:ProposalCreated", async ({ event, context }) => {
  const a = event.args;
  await context.db.insert(proposal).values({
    id: a.proposalId.toString(),
    proposer: a.proposer,
    description: a.description,
    targets: [...a.targets],
    values: a.values.map((v) => v.toString()),
    calldatas: [...a.calldatas],
    voteStart: a.voteStart,
    voteEnd: a.voteEnd,
    forVotes: 0n,
    againstVotes: 0n,
    abstainVotes: 0n,
    canceled: false,
    executed: false,
    createdAt: event.block.timestamp,
    createdTx: event.transaction.hash,
  });
});

ponder.on("AgentHubGovernor:VoteCast", async ({ event, context }) => {
  const { voter, proposalId, support, weight, reason } = event.args;
  const id = proposalId.toString();
  await context.db.update(proposal, { id }).set((row) => ({
    forVotes: row.forVotes + (support === 1 ? weight : 0n),
    againstVotes: row.againstVotes + (support === 0 ? weight : 0n),
    abstainVotes: row.abstainVotes + (support === 2 ? weight : 0n),
  }));
  await context.db.insert(vote).values({
    id: event.id,
    proposalId: id,
    voter,
    support,
    weight,
    reason,
    timestamp: event.block.timestamp,
  });
});

ponder.on("AgentHubGovernor:ProposalQueued", async ({ event, context }) => {
  await context.db.update(proposal, { id: event.args.proposalId.toString() }).set({ eta: event.args.etaSeconds });
});

ponder.on("AgentHubGovernor:ProposalExecuted", async ({ event, context }) => {
  await context.db.update(proposal, { id: event.args.proposalId.toString() }).set({ executed: true });
});

ponder.on("AgentHubGovernor:ProposalCanceled", async ({ event, context }) => {
  await context.db.update(proposal, { id: event.args.proposalId.toString() }).set({ canceled: true });
});

async function holder(context: Context, address: `0x${string}`) {
  return (await context.db.find(tokenHolder, { address })) ?? { address, balance: 0n, votes: 0n, delegate: null };
}

ponder.on("AgentHubToken:Transfer", async ({ event, context }) => {
  const { from, to, value } = event.args;
  if (from !== zeroAddress) {
    const h = await holder(context, from);
    await context.db
      .insert(tokenHolder)
      .values({ ...h, balance: h.balance - value })
      .onConflictDoUpdate({ balance: h.balance - value });
  }
  if (to !== zeroAddress) {
    const h = await holder(context, to);
    await context.db
      .insert(tokenHolder)
      .values({ ...h, balance: h.balance + value })
      .onConflictDoUpdate({ balance: h.balance + value });
  }
});

ponder.on("AgentHubToken:DelegateChanged", async ({ event, context }) => {
  const { delegator, toDelegate } = event.args;
  const h = await holder(context, delegator);
  await context.db
    .insert(tokenHolder)
    .values({ ...h, delegate: toDelegate })
    .onConflictDoUpdate({ delegate: toDelegate });
});

ponder.on("AgentHubToken:DelegateVotesChanged", async ({ event, context }) => {
  const { delegate, newVotes } = event.args;
  const h = await holder(context, delegate);
  await context.db
    .insert(tokenHolder)
    .values({ ...h, votes: newVotes })
    .onConflictDoUpdate({ votes: newVotes });
});
