// What people type ("12.5") to USDC base units (12500000n), exactly; null for anything that is not an amount.
export function parseUsdc(text: string): bigint | null {
  const match = /^\s*(\d{1,12})(?:\.(\d{0,6}))?\s*$/.exec(text);
  if (!match) return null;
  return BigInt(match[1]!) * 1_000_000n + BigInt((match[2] ?? "").padEnd(6, "0"));
}
