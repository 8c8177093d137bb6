import { ponder } from "ponder:registry";
import { agent } from "ponder:schema";
import { zeroAddress } from "viem";

ponder.on("AgentIdentity:AgentRegistered", async ({ event, context }) => {
  const { agentId, wallet } = event.args;
  await context.db
    .insert(agent)
    .values({
      id: agentId,
      owner: wallet,
      wallet,
      walletBound: true,
      metadataUri: "",
      claimed: false,
      registeredAt: event.block.timestamp,
      registeredTx: event.transaction.hash,
      updatedAt: event.block.timestamp,
    })
    .onConflictDoNothing();
});

ponder.on("AgentIdentity:ProfileUpdated", async ({ event, context }) => {
  await context.db
    .update(agent, { id: event.args.agentId })
    .set({ metadataUri: event.args.newMetadataUri, updatedAt: event.block.timestamp });
});

ponder.on("AgentIdentity:AgentClaimed", async ({ event, context }) => {
  await context.db.update(agent, { id: event.args.agentId }).set({
    claimed: true,
    claimedAt: event.block.timestamp,
    owner: event.args.newOwner,
    updatedAt: event.block.timestamp,
  });
});

// Owners may move tokens after the claim too; payouts and authorization follow the current owner.
ponder.on("AgentIdentity:Transfer", async ({ event, context }) => {
  if (event.args.from === zeroAddress) return; // mints are handled by AgentRegistered
  const existing = await context.db.find(agent, { id: event.args.tokenId });
  if (!existing) return;
  await context.db.update(agent, { id: event.args.tokenId }).set({
    owner: event.args.to,
    walletBound: existing.walletBound && event.args.from.toLowerCase() === existing.wallet.toLowerCase(),
    updatedAt: event.block.timestamp,
  });
});
