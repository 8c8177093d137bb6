import type { z } from "zod";

/** Parses process.env (or `source`) once against `schema`, failing with every problem listed. */
export function parseEnv<T extends z.ZodType>(schema: T, source: NodeJS.ProcessEnv = process.env): z.infer<T> {
  const result = schema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`).join("\n");
    throw new Error(`invalid environment:\n${problems}`);
  }
  return result.data;
}
