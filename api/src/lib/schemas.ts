// Request/response building blocks shared by every feature router.
import { z } from "@hono/zod-openapi";
import { isAddress, isHex } from "viem";
import { ERRORS, type ErrorCode } from "../errors.ts";

export const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === "http:" || u.protocol === "https:";
    } catch {
      return false;
    }
  }, "must be an http(s) URL");

export const address = z.string().refine((v) => isAddress(v, { strict: false }), "must be a 0x address");
export const hexSignature = z.string().refine((v) => isHex(v) && v.length >= 132, "must be a hex signature");
export const txHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 32-byte transaction hash");
export const baseUnits = z.string().regex(/^\d{1,30}$/, "must be an unsigned integer string in USDC base units");
/** Every code the API answers with (the catalogue), as one OpenAPI enum: the SDK's typed error codes come from it. */
export const errorCode = z.enum(Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]]).openapi("ErrorCode", {
  description: "The error's stable code (api/src/errors.ts); branch on it, not on the message",
});
export const errorSchema = z.object({ error: z.object({ code: errorCode, message: z.string() }) }).openapi("Error");

export const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
export const jsonBody = <T extends z.ZodTypeAny>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});
export const errorResponses = (...codes: (400 | 401 | 402 | 403 | 404 | 409 | 413 | 422 | 429 | 503 | 504)[]) =>
  Object.fromEntries(codes.map((code) => [code, json(errorSchema, "Error")]));

/** The `limit` query parameter of every list: 1-100 items. */
export const pageLimit = (defaultLimit: number) => z.coerce.number().int().min(1).max(100).default(defaultLimit);

/** `page` (from 1) and `limit` (1-100) query parameters of the page-numbered lists. */
export const pageQuery = ({ defaultLimit = 20, maxPage = 1_000_000 } = {}) => ({
  page: z.coerce.number().int().min(1).max(maxPage).default(1),
  limit: pageLimit(defaultLimit),
});

/** The `pagination` object of a page-numbered list. */
export const pagination = z.object({ page: z.number(), limit: z.number(), total: z.number(), totalPages: z.number() });

export const paginationOf = (page: number, limit: number, total: number) => ({
  page,
  limit,
  total,
  totalPages: Math.ceil(total / limit),
});

/** `limit` (1-100) and `offset` query parameters of the offset-paginated lists. */
export const offsetPageQuery = (defaultLimit: number) => ({
  limit: pageLimit(defaultLimit).openapi({ param: { name: "limit", in: "query" } }),
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(0)
    .openapi({ param: { name: "offset", in: "query" } }),
});

/** A positive safe-integer id taken from the path parameter `name`. */
export const pathId = (name: string, description?: string) =>
  z.coerce
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ param: { name, in: "path" }, example: 1, ...(description ? { description } : {}) });

/** A DNS name (lower-cased, trailing dot dropped, no IP literal); the error names `example`. */
export const domainNameSchema = (example: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .transform((d) => d.replace(/\.$/, ""))
    .refine(
      (d) =>
        d.length <= 253 &&
        /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/.test(d) &&
        !/^[0-9.]+$/.test(d),
      `must be a domain name such as ${example}`,
    );
