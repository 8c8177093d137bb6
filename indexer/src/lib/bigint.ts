/** Math.min does not take bigints. */
export const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b);
