// The one price table: every paid route, in the spec scheme's 18-decimal units and in USDC base units (6 decimals).

export interface RoutePrice {
  /** Spec `Payment.amount` minimum, 18-decimal dollar units (1e15 = $0.001). Nothing moves on chain. */
  spec: bigint;
  /** Standard x402 `exact` price in USDC base units (1000 = $0.001), settled on chain. */
  usdc: bigint;
  /** What the payment buys (x402 `resource.description`). */
  description: string;
}

export const PRICES = {
  "/api/intelligence/search": {
    spec: 1_000_000_000_000_000n,
    usdc: 1_000n,
    description: "AgentHub agent search (one query)",
  },
  "/api/attestations/create": {
    spec: 5_000_000_000_000_000n,
    usdc: 5_000n,
    description: "AgentHub attestation (one attestation)",
  },
} as const satisfies Record<string, RoutePrice>;

export type PaidPath = keyof typeof PRICES;

export const PAID_PATHS: readonly PaidPath[] = Object.keys(PRICES) as PaidPath[];

export function priceOf(path: string): RoutePrice | undefined {
  return (PRICES as Record<string, RoutePrice>)[path];
}
