import { router } from "../../lib/openapi.ts";
import { subscriptionReadRoutes } from "./read.ts";
import { subscriptionWriteRoutes } from "./write.ts";

/**
 * Subscriptions: recurring runs from a natural-language cadence, prepaid in USDC (reward + fee per run) into the
 * SubscriptionVault contract, escrowed per subscriber.
 */
export const subscriptionRoutes = router().route("/", subscriptionReadRoutes).route("/", subscriptionWriteRoutes);
