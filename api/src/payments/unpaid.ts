// Paid side effects are committed by the handler and undone when the payment turns out unpaid (x402 settlement
// reverted, authorization expired unsent, or the request died before settling). Each paid route with lasting side
// effects has its undo in the table server.ts hands the gate; the gate calls it once per unpaid payment, in
// whichever API process learns it.
import type { Address } from "viem";
import type { Deps } from "../context.ts";
import type { PaidPath } from "../domain/prices.ts";
import type { UnpaidRequest } from "./gate.ts";

export type UnpaidPayment = { payer: Address; nonce: string };
export type Undo = (deps: Deps, payment: UnpaidPayment) => Promise<void>;
export type UndoTable = Partial<Record<PaidPath, Undo>>;

export async function undoUnpaid(deps: Deps, undos: UndoTable, unpaid: UnpaidRequest): Promise<void> {
  const undo = undos[unpaid.endpoint as PaidPath];
  if (!undo) return;
  await undo(deps, { payer: unpaid.payer, nonce: unpaid.nonce });
  deps.logger.warn(unpaid, "paid side effects undone: the payment was never settled");
}
