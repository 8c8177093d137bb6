/** The escrow's fee rate at deployment (RunEscrow.feeBps: 5%); governance may change it (api/src/lib/protocol.ts). */
export const FEE_BPS = 500n;

/**
 * The fee RunEscrow charges on `reward` at `feeBps`: rounded up to the next base unit, so at a non-zero rate every
 * run pays at least 1.
 */
export const feeOf = (reward: bigint, feeBps: bigint = FEE_BPS) => (reward * feeBps + 9_999n) / 10_000n;
