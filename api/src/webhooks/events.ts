// Webhook event names (spec §4) and the retry schedule of deliveries.

export const WEBHOOK_EVENTS = [
  "agent.registered",
  "agent.updated",
  "bounty.created",
  "bounty.claimed",
  "bounty.completed",
  "reputation.updated",
  "verification.completed",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Attempts per delivery, the first included. */
export const MAX_ATTEMPTS = 8;

/**
 * Seconds to wait after failed attempt `attempt` (1-based): base x 4^(attempt-1), capped at base x 360. With the
 * default base of 60 s: 1 min, 4 min, 16 min, ~1 h, ~4.3 h, 6 h, 6 h, so the 8th attempt comes ~18 h after the first.
 */
export function retryDelaySeconds(attempt: number, baseSeconds: number): number {
  const n = Math.max(1, Math.floor(attempt));
  return Math.min(baseSeconds * 4 ** (n - 1), baseSeconds * 360);
}

/** Whether a receiver's answer counts as delivered (any 2xx). */
export const delivered = (status: number | null) => status !== null && status >= 200 && status < 300;
