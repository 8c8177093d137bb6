import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseEnv as parseDotEnv } from "node:util";
import { z } from "zod";

/** Parses process.env (or `source`) once against `schema`, failing with every problem listed. */
export function parseEnv<T extends z.ZodType>(schema: T, source: NodeJS.ProcessEnv = process.env): z.infer<T> {
  const result = schema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`).join("\n");
    throw new Error(`invalid environment:\n${problems}`);
  }
  return result.data;
}

/** The secrets a service may read from a file (`<NAME>_FILE`) instead of its environment. */
export const SECRET_FILE_VARIABLES = [
  "RELAYER_PRIVATE_KEY",
  "PAYMASTER_SIGNER_KEY",
  "ARBITER_PRIVATE_KEY",
  "KEY_ENCRYPTION_KEY",
  "ADMIN_TOKEN",
  "RELAYER_TOKEN",
  "METRICS_TOKEN",
  "DATABASE_URL",
] as const;

/**
 * `source` with each secret `NAME` read from the file `NAME_FILE` names (trimmed), when that is set: the key then lives
 * in a file only its service's user can read (a Docker/Kubernetes secret, a systemd credential, a KMS agent's
 * output) and never in the process environment or a shell history. Setting both is refused, as is an empty file.
 */
export function readSecretFiles(
  source: NodeJS.ProcessEnv,
  names: readonly string[] = SECRET_FILE_VARIABLES,
): NodeJS.ProcessEnv {
  const out = { ...source };
  for (const name of names) {
    const path = source[`${name}_FILE`];
    if (!path) continue;
    if (source[name]) throw new Error(`invalid environment:\n  ${name}: set either ${name} or ${name}_FILE, not both`);
    let value: string;
    try {
      value = readFileSync(path, "utf8").trim();
    } catch (error) {
      throw new Error(
        `invalid environment:\n  ${name}_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code})`,
      );
    }
    if (!value) throw new Error(`invalid environment:\n  ${name}_FILE: ${path} is empty`);
    out[name] = value;
  }
  return out;
}

/**
 * Refuses a paymaster approving key equal to the relayer's hot key (PAYMASTER_SIGNER_KEY = RELAYER_PRIVATE_KEY):
 * one leak would then hand over both roles, and the paymaster's budgets would guard the relayer's gas too.
 */
export function refuseSharedSigner(paymasterKey: string | undefined, relayerKey: string | undefined): void {
  if (!paymasterKey || !relayerKey || paymasterKey.toLowerCase() !== relayerKey.toLowerCase()) return;
  throw new Error(
    "invalid environment:\n  PAYMASTER_SIGNER_KEY: is RELAYER_PRIVATE_KEY; the paymaster approves with a key of its own",
  );
}

/** A comma-separated list of URLs (`RPC_URLS=https://a,https://b`); unset or empty: undefined. */
export const urlList = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const urls = (value ?? "")
      .split(",")
      .map((u) => u.trim())
      .filter(Boolean);
    for (const url of urls) {
      if (!URL.canParse(url)) ctx.addIssue({ code: "custom", message: `not a URL: ${url}` });
    }
    return urls.length ? urls : undefined;
  });

/** The repository's `.env` (every package runs from inside the repository). */
export const defaultEnvFile = fileURLToPath(new URL("../../.env", import.meta.url));

/**
 * Loads `.env` (or `ENV_FILE`; `ENV_FILE=` with no value loads nothing) into process.env when the file exists.
 * Variables already set in the real environment win, so a service started by the stack keeps what it was given.
 * Returns the file loaded, if any.
 */
export function loadDotEnv(file = process.env.ENV_FILE ?? defaultEnvFile): string | undefined {
  if (!file || !existsSync(file)) return undefined;
  const values = parseDotEnv(readFileSync(file, "utf8"));
  for (const [key, value] of Object.entries(values)) {
    if (process.env[key] === undefined && value !== undefined) process.env[key] = value;
  }
  return file;
}
