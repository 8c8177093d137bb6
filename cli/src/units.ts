// Amount and time arguments: USDC as decimals ("10", "0.5"; 6 decimals), deadlines as ISO dates or durations.
import { formatUnits, parseUnits } from "viem";
import { UsageError } from "./exit-codes.ts";

/** "10.5" USDC -> 10500000 base units. */
export function usdc(value: string, what = "amount"): bigint {
  if (!/^\d+(\.\d{1,6})?$/.test(value))
    throw new UsageError(`${what} must be USDC with at most 6 decimals, e.g. 10 or 2.5`);
  return parseUnits(value, 6);
}

export const formatUsdc = (baseUnits: string | bigint) => `${formatUnits(BigInt(baseUnits), 6)} USDC`;

/** "3d", "12h", "90m", "45s" -> seconds; undefined when not a duration. */
export function durationSeconds(value: string): number | undefined {
  const m = /^(\d+)([smhd])$/.exec(value);
  if (!m) return undefined;
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2] as "s" | "m" | "h" | "d"];
}

export function positiveInt(value: string, what: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${what} must be a positive integer`);
  }
  return Number(value);
}

export const list = (value: string | undefined) =>
  value
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
