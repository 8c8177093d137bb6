// Reading one subscription (the vault is the truth: the mirror is refreshed first) and the check every write starts
// with: the subscription exists (404), the request is signed (401) by its poster (403).
import type { Deps } from "../../context.ts";
import { errors } from "../../errors.ts";
import { findSubscription, type SubscriptionRow, subscriptionRuns } from "../../stores/subscriptions.ts";
import { verifySignedBy } from "../guards.ts";
import { syncFromChain } from "./vault.ts";

export async function requireSubscription(deps: Pick<Deps, "db">, id: number): Promise<SubscriptionRow> {
  const row = await findSubscription(deps, id);
  if (!row) throw errors.notFound("SUBSCRIPTION_NOT_FOUND", `subscription ${id} does not exist`);
  return row;
}

/** The subscription as the vault has it now (the subscriber may have acted on the vault directly). */
export async function getSubscription(deps: Deps, id: number): Promise<SubscriptionRow> {
  return syncFromChain(deps, await requireSubscription(deps, id));
}

/** A page of the runs the subscription created, oldest first. */
export async function listSubscriptionRuns(deps: Deps, p: { id: number; page: number; limit: number }) {
  await requireSubscription(deps, p.id);
  return subscriptionRuns(deps, p.id, { limit: p.limit, offset: (p.page - 1) * p.limit });
}

/** Verifies the poster's signed `action` on subscription `id`; returns the row, refreshed from the vault. */
export async function authorizePoster(
  deps: Deps,
  id: number,
  signed: { message: string; signature: string },
  action: string,
): Promise<SubscriptionRow> {
  const row = await requireSubscription(deps, id);
  await verifySignedBy(deps, signed, { action, kind: "subscription", id }, [row.posterAddress], () =>
    errors.forbidden(
      "NOT_SUBSCRIPTION_POSTER",
      `only subscription ${row.id}'s poster ${row.posterAddress} may do this`,
    ),
  );
  return syncFromChain(deps, row);
}
