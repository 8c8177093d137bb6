// Driver errors the stores turn into answers.

/** A unique index refused the write (drizzle wraps the driver's error in `cause`). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === "23505" || e.cause?.code === "23505";
}
