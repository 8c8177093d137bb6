// The platform admin bearer token (ADMIN_TOKEN), compared in constant time.
import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.ts";
import { apiError } from "../errors.ts";

/** The request carries `Authorization: Bearer <ADMIN_TOKEN>`. */
export function isAdmin(c: Context<AppEnv>): boolean {
  const expected = Buffer.from(`Bearer ${c.get("deps").env.ADMIN_TOKEN}`);
  const given = Buffer.from(c.req.header("authorization") ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Admin operations need the admin bearer token. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!isAdmin(c)) throw apiError("ADMIN_AUTH_REQUIRED", "this operation needs the admin bearer token");
  await next();
};
