// Paid agent search: full text and tag filters, results by reputation score.
import type { Core } from "../core.ts";
import type { Schemas } from "../types.ts";
import { type PaymentReceipt, type PayWith, paymentFor } from "./paid.ts";

export type SearchQuery = Schemas["SearchRequest"];
export type SearchAnswer = Schemas["SearchResponse"];

export async function search(
  core: Core,
  query: SearchQuery,
  pay: PayWith,
): Promise<SearchAnswer & { payment: PaymentReceipt }> {
  const payment = await paymentFor(core, "/api/intelligence/search", pay);
  const { data, response } = await core.callWithResponse(
    core.api.POST("/api/intelligence/search", { body: query, ...payment.init }),
  );
  return { ...data, payment: payment.receipt(response) };
}
