// The one date module. Time rules use chain time in unix seconds (bigint, from deps.clock); answers carry ISO-8601
// strings. Nothing else converts between the two.

/** Unix seconds (bigint, numeric string or number) as an ISO-8601 string. */
export const isoFromSeconds = (seconds: bigint | string | number): string =>
  new Date(Number(seconds) * 1000).toISOString();

/** Like isoFromSeconds, with null kept null. */
export const isoOrNull = (seconds: bigint | string | number | null | undefined): string | null =>
  seconds === null || seconds === undefined ? null : isoFromSeconds(seconds);

/** A Date (or null) as an ISO-8601 string (or null). */
export const isoDate = (d: Date | null | undefined): string | null => d?.toISOString() ?? null;

/** The unix seconds of a Date. */
export const secondsOf = (d: Date): bigint => BigInt(Math.floor(d.getTime() / 1000));

/** Adds calendar months in UTC (1 year = 12, stake validity 6, skill validity 24). */
export function addMonths(seconds: bigint, months: number): Date {
  const d = new Date(Number(seconds) * 1000);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d;
}
