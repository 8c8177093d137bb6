/**
 * The fee RunEscrow charges on `reward` at `feeBps` (RunEscrow.feeBps, a governance parameter: read it with
 * api/src/lib/protocol.ts): rounded up to the next base unit, so at a non-zero rate every run pays at least 1.
 */
export const feeOf = (reward: bigint, feeBps: bigint) => (reward * feeBps + 9_999n) / 10_000n;
