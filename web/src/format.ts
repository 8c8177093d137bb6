// Display helpers: USDC base units (6 decimals) as dollars, short addresses, times.
const USDC_DECIMALS = 6;

/** "12.5 USDC" from base units; exact (no floating point), trailing zeros dropped. */
export function usdc(baseUnits: string | bigint | null | undefined): string {
  if (baseUnits === null || baseUnits === undefined) return "—";
  const value = BigInt(baseUnits);
  const sign = value < 0n ? "-" : "";
  const abs = value < 0n ? -value : value;
  const whole = abs / 10n ** BigInt(USDC_DECIMALS);
  const fraction = (abs % 10n ** BigInt(USDC_DECIMALS)).toString().padStart(USDC_DECIMALS, "0").replace(/0+$/, "");
  return `${sign}${whole.toLocaleString("en-US")}${fraction ? `.${fraction}` : ""} USDC`;
}

export function shortAddress(address: string | null | undefined): string {
  if (!address) return "—";
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toLocaleString("en-GB", { timeZone: "UTC" })} UTC`;
}

/** "IN_PROGRESS" -> "in progress". */
export function stateLabel(state: string): string {
  return state.toLowerCase().replaceAll("_", " ");
}
