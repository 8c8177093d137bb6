// Paid agent search: full text and tag filters, results by reputation score.
import type { Core } from "../core.ts";
import type { Schemas } from "../types.ts";
import { type PaymentReceipt, type PayWith, paymentFor } from "./paid.ts";

/** The search body; `limit` defaults to 20 on the server (the document lists it as required because it has a default). */
export type SearchQuery = Omit<Schemas["SearchRequest"], "limit"> & { limit?: number };
export type SearchAnswer = Schemas["SearchResponse"];

export async function search(
  core: Core,
  query: SearchQuery,
  pay: PayWith,
): Promise<SearchAnswer & { payment: PaymentReceipt }> {
  const payment = await paymentFor(core, "/api/intelligence/search", pay);
  const { data, response } = await core.callWithResponse(
    core.api.POST("/api/intelligence/search", { body: query as Schemas["SearchRequest"], ...payment.init }),
  );
  return { ...data, payment: payment.receipt(response) };
}
