// ERC-4337: a bundled transaction is sent by the bundler's executor, not by the agent. The EntryPoint emits each
// operation's UserOperationEvent right after the logs of that operation's execution, and Ponder runs handlers in
// log order, so when the event arrives every AgentHub log of the operation is already stored with the
// transaction's sender as a provisional actor: those rows (same transaction, earlier log, actor still the
// transaction's sender) get the operation's sender. Earlier operations of the bundle already took theirs.
import { ponder } from "ponder:registry";
import { insuranceEvent, runEvent, userOperation } from "ponder:schema";
import { and, eq, lt } from "ponder";
import { isAddressEqual } from "viem";
import { deployments } from "./lib/deployments.ts";

const paymaster = deployments.accountAbstraction?.paymaster.address;

ponder.on("EntryPoint:UserOperationEvent", async ({ event, context }) => {
  const { userOpHash, sender, nonce, success, actualGasCost, actualGasUsed } = event.args;
  const tx = event.transaction;
  await context.db.sql
    .update(runEvent)
    .set({ actor: sender })
    .where(and(eq(runEvent.txHash, tx.hash), lt(runEvent.logIndex, event.log.logIndex), eq(runEvent.actor, tx.from)));
  // Coverage withdrawal requests name their caller the same way (event ids are checkpoints: they sort in log order).
  await context.db.sql
    .update(insuranceEvent)
    .set({ account: sender })
    .where(
      and(
        eq(insuranceEvent.txHash, tx.hash),
        lt(insuranceEvent.id, event.id),
        eq(insuranceEvent.kind, "WITHDRAWAL_REQUESTED"),
        eq(insuranceEvent.account, tx.from),
      ),
    );

  if (!paymaster || !isAddressEqual(event.args.paymaster, paymaster)) return;
  await context.db.insert(userOperation).values({
    userOpHash,
    sender,
    paymaster: event.args.paymaster,
    nonce,
    success,
    actualGasCost,
    actualGasUsed,
    bundler: tx.from,
    txHash: tx.hash,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: event.block.timestamp,
  });
});
