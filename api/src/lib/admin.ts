import { timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.ts";
import { ApiError } from "../errors.ts";

/** Admin operations need `Authorization: Bearer <ADMIN_TOKEN>` (compared in constant time). */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = Buffer.from(`Bearer ${c.get("deps").env.ADMIN_TOKEN}`);
  const given = Buffer.from(c.req.header("authorization") ?? "");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new ApiError(401, "ADMIN_AUTH_REQUIRED", "this operation needs the admin bearer token");
  }
  await next();
};
