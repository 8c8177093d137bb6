// EIP-1559 fee policy: what a new transaction offers, and what a replacement of a stuck one offers.

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export class FeeCapReached extends Error {}

/** The network's current estimate, capped (a fee spike never makes the relayer pay more than `cap` per gas). */
export function initialFees(estimate: Fees, cap: bigint): Fees {
  const maxFeePerGas = estimate.maxFeePerGas < cap ? estimate.maxFeePerGas : cap;
  const tip = estimate.maxPriorityFeePerGas < maxFeePerGas ? estimate.maxPriorityFeePerGas : maxFeePerGas;
  return { maxFeePerGas, maxPriorityFeePerGas: tip };
}

const bump = (value: bigint, percent: number) => (value * BigInt(100 + percent) + 99n) / 100n;
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Fees for a replacement at the same nonce: both fees at least `percent` above the previous version (nodes refuse
 * a replacement that does not raise both by 10%), and never below what the network asks now. Throws
 * FeeCapReached when that would exceed `cap`: the transaction then waits for fees to come down.
 */
export function replacementFees(previous: Fees, estimate: Fees, percent: number, cap: bigint): Fees {
  const tip = max(bump(previous.maxPriorityFeePerGas, percent), estimate.maxPriorityFeePerGas);
  const maxFeePerGas = max(max(bump(previous.maxFeePerGas, percent), estimate.maxFeePerGas), tip);
  if (maxFeePerGas > cap) {
    throw new FeeCapReached(`a replacement needs ${maxFeePerGas} wei per gas, above the cap of ${cap}`);
  }
  return { maxFeePerGas, maxPriorityFeePerGas: tip };
}
