// Paid side effects are committed by the handler and undone when the payment turns out unpaid (x402 settlement
// reverted, authorization expired unsent, or the request died before settling). Each paid route with lasting side
// effects registers its undo here; the gate calls it once per unpaid payment, in whichever API process learns it.
import type { Address } from "viem";
import type { Deps } from "../context.ts";
import type { UnpaidRequest } from "./gate.ts";
import type { PaidPath } from "./prices.ts";

export type Undo = (deps: Deps, payment: { payer: Address; nonce: string }) => Promise<void>;

const undos = new Map<string, Undo>();

export function onUnpaid(path: PaidPath, undo: Undo): void {
  undos.set(path, undo);
}

export async function undoUnpaid(deps: Deps, unpaid: UnpaidRequest): Promise<void> {
  const undo = undos.get(unpaid.endpoint);
  if (!undo) return;
  await undo(deps, { payer: unpaid.payer, nonce: unpaid.nonce });
  deps.logger.warn(unpaid, "paid side effects undone: the payment was never settled");
}
