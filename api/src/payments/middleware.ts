// Thin Hono adapter over the framework-free gate: `requirePayment(path)` before a paid route's handler.
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv, Deps } from "../context.ts";
import type { PaidPath } from "../domain/prices.ts";
import { errorBody } from "../errors.ts";
import { PaymentError } from "./errors.ts";
import { PaymentGate, type UnpaidRequest } from "./gate.ts";
import { defaultRecoverer } from "./recover.ts";

type GateParts = Pick<Deps, "env" | "pool" | "chain" | "relayer" | "deployments" | "logger">;

/** The API's payment gate, built once in server.ts (which starts its reconciler and stops it on shutdown). */
export function createPaymentGate(parts: GateParts, onUnpaid: (unpaid: UnpaidRequest) => Promise<void>): PaymentGate {
  return new PaymentGate({
    pool: parts.pool,
    chain: parts.chain,
    relayer: parts.relayer,
    deployments: parts.deployments,
    logger: parts.logger,
    recipient: parts.env.PLATFORM_RECIPIENT_ADDRESS as `0x${string}`,
    publicUrl: parts.env.PUBLIC_URL,
    recoverer: defaultRecoverer(),
    onUnpaid,
  });
}

function paymentErrorResponse(c: Context<AppEnv>, gate: PaymentGate, path: PaidPath, error: PaymentError) {
  const challenge = gate.challenge(path, error);
  return c.json({ ...errorBody(error.code, error.message), ...challenge.body }, error.status, challenge.headers);
}

/**
 * Requires a payment for `path` (a key of the price table): the spec's x-payment JSON, x402 v1 X-PAYMENT or x402
 * v2 PAYMENT-SIGNATURE. The handler sees `c.get("payment")`. A handler answering >= 400 (or throwing) gives the
 * payment back; a successful x402 request is settled on chain before its response leaves.
 */
export function requirePayment(path: PaidPath): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const gate = c.get("deps").payments;
    let open: Awaited<ReturnType<PaymentGate["open"]>>;
    try {
      open = await gate.open(path, c.req.path, (name) => c.req.header(name));
    } catch (error) {
      if (error instanceof PaymentError) return paymentErrorResponse(c, gate, path, error);
      throw error;
    }
    c.set("payment", open.payment);
    let ok = false;
    try {
      await next();
      ok = c.res.status < 400 && !c.error;
    } finally {
      if (!ok) await open.close(false);
    }
    if (!ok) return;
    try {
      const headers = await open.close(true);
      for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
    } catch (error) {
      // Settlement failed: the paid response is withheld.
      if (error instanceof PaymentError) {
        c.res = undefined;
        c.res = paymentErrorResponse(c, gate, path, error);
        return;
      }
      throw error;
    }
  };
}
