/** Platform fee in basis points of a run's reward (RunEscrow.FEE_BPS: 5%). */
export const FEE_BPS = 500n;

/** The fee RunEscrow charges: 5% of the reward rounded up to the next base unit (a non-zero reward pays at least 1). */
export const feeOf = (reward: bigint) => (reward * FEE_BPS + 9_999n) / 10_000n;
