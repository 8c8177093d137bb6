// Webhook delivery: a periodic pg-boss job (one pass at a time across all API processes) claims due deliveries
// from the outbox with a lease (FOR UPDATE SKIP LOCKED), POSTs the stored body signed with the webhook's secret,
// and records the outcome. A failed attempt is retried with exponential backoff up to MAX_ATTEMPTS, then the
// delivery is marked failed. Every hop goes through the same SSRF guard as the uptime checker (private targets only
// in local mode), redirects are not followed, and the receiver has WEBHOOK_TIMEOUT_MS to answer.
import type { Deps } from "../context.ts";
import { mapLimit, pinnedRequest } from "../lib/net/health-check.ts";
import { BlockedTargetError, resolveTarget } from "../lib/net/ssrf.ts";
import { claimDueDeliveries, markAttemptFailed, markDelivered } from "../stores/webhook-outbox.ts";
import { delivered, MAX_ATTEMPTS, retryDelaySeconds } from "./events.ts";
import { DELIVERY_HEADER, EVENT_HEADER, signedHeaders } from "./signature.ts";

const BATCH = 50;
const CONCURRENCY = 10;

export const allowPrivateWebhookTargets = (deps: Deps) =>
  deps.env.ALLOW_PRIVATE_WEBHOOK_TARGETS ?? deps.env.ALLOW_PRIVATE_UPTIME_TARGETS ?? deps.env.LOCAL_CHAIN;

/** The AAD that binds an encrypted webhook secret to its webhook. */
export const secretAad = (webhookId: string) => `webhook:${webhookId}`;

export function encryptSecret(deps: Deps, webhookId: string, secret: string): Buffer {
  return deps.keys.encrypt(`0x${Buffer.from(secret, "utf8").toString("hex")}`, secretAad(webhookId));
}

export function decryptSecret(deps: Deps, webhookId: string, blob: Buffer): string {
  return Buffer.from(deps.keys.decrypt(blob, secretAad(webhookId)).slice(2), "hex").toString("utf8");
}

export interface AttemptResult {
  statusCode: number | null;
  error: string | null;
}

/** One signed POST; never throws. 2xx is success; redirects are failures (the URL must be the final one). */
export async function attemptDelivery(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<AttemptResult> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  try {
    const target = new URL(url);
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      return { statusCode: null, error: "UNSUPPORTED_SCHEME" };
    }
    const address = await resolveTarget(target.hostname, opts.allowPrivate);
    const { status } = await pinnedRequest(target, address, { method: "POST", headers, body }, signal);
    return { statusCode: status, error: delivered(status) ? null : `HTTP_${status}` };
  } catch (err) {
    if (err instanceof BlockedTargetError) return { statusCode: null, error: "BLOCKED_TARGET" };
    if (signal.aborted) return { statusCode: null, error: "TIMEOUT" };
    const code = (err as NodeJS.ErrnoException)?.code;
    if (code === "ECONNREFUSED") return { statusCode: null, error: "CONNECTION_REFUSED" };
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") return { statusCode: null, error: "DNS_FAILED" };
    return { statusCode: null, error: code ?? "REQUEST_FAILED" };
  }
}

/** One dispatch pass: delivers what is due (in rounds of BATCH) and returns counts. */
export async function dispatchWebhooks(deps: Deps): Promise<{ attempted: number; delivered: number; failed: number }> {
  const timeoutMs = deps.env.WEBHOOK_TIMEOUT_MS;
  const leaseSeconds = Math.ceil(timeoutMs / 1000) * 3 + 30;
  const opts = { timeoutMs, allowPrivate: allowPrivateWebhookTargets(deps) };
  const totals = { attempted: 0, delivered: 0, failed: 0 };
  for (let round = 0; round < 20; round++) {
    const rows = await claimDueDeliveries(deps, BATCH, leaseSeconds);
    if (rows.length === 0) break;
    await mapLimit(rows, CONCURRENCY, async (row) => {
      let result: AttemptResult;
      try {
        const secret = decryptSecret(deps, row.webhook_id, row.secret_enc);
        result = await attemptDelivery(
          row.url,
          row.body,
          {
            "content-type": "application/json",
            "user-agent": "AgentHub-Webhooks/1.0",
            ...signedHeaders(secret, row.event_id, row.body, Math.floor(Date.now() / 1000)),
            [EVENT_HEADER]: row.event,
            [DELIVERY_HEADER]: row.id,
          },
          opts,
        );
      } catch (err) {
        deps.logger.error({ err, delivery: row.id }, "webhook delivery failed unexpectedly");
        result = { statusCode: null, error: "INTERNAL_ERROR" };
      }
      totals.attempted++;
      if (result.error === null) {
        totals.delivered++;
        await markDelivered(deps, row.id, result.statusCode);
        return;
      }
      const exhausted = row.attempts >= MAX_ATTEMPTS;
      if (exhausted) totals.failed++;
      await markAttemptFailed(deps, row.id, {
        status: exhausted ? "failed" : "pending",
        statusCode: result.statusCode,
        error: result.error,
        retryInSeconds: exhausted ? 0 : retryDelaySeconds(row.attempts, deps.env.WEBHOOK_RETRY_BASE_SECONDS),
      });
    });
    if (rows.length < BATCH) break;
  }
  return totals;
}
