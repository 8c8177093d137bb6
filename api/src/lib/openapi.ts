import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../context.ts";
import { apiError } from "../errors.ts";

/** A feature router whose request validation failures become the spec's 400 error body. */
export function router() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
        throw apiError("VALIDATION_ERROR", `${where}${issue?.message ?? "invalid request"}`);
      }
    },
  });
}
