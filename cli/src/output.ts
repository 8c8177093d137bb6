// Output: `--json` prints the API's answer as JSON on stdout (one document per command); otherwise short human
// tables. Progress and errors go to stderr, so stdout stays parseable.
import { AgentHubError, type Progress } from "@agenthub/sdk";
import { exitCodeOf } from "./exit-codes.ts";

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
}

type Row = Record<string, unknown>;

function cell(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A left-aligned table of rows, columns in the given order (default: the first row's keys). */
export function table<R extends object>(rows: R[], columns?: readonly (keyof R & string)[]): string {
  if (rows.length === 0) return "(none)";
  const cols = columns ?? (Object.keys(rows[0]!) as (keyof R & string)[]);
  const cells = rows.map((r) => cols.map((c) => cell(r[c])));
  const widths = cols.map((c, i) => Math.min(60, Math.max(c.length, ...cells.map((r) => r[i]!.length))));
  const line = (values: string[]) =>
    values
      .map((v, i) => (v.length > widths[i]! ? `${v.slice(0, widths[i]! - 1)}…` : v.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(cols.map((c) => c.toUpperCase())), ...cells.map(line)].join("\n");
}

/** Key/value lines for one object (nested objects as JSON). */
export function details(obj: Row, keys?: string[]): string {
  const ks = keys ?? Object.keys(obj);
  const width = Math.max(...ks.map((k) => k.length));
  return ks.map((k) => `${k.padEnd(width)}  ${cell(obj[k])}`).join("\n");
}

export class Output {
  private spinnerTimer?: NodeJS.Timeout;
  private lastProgress = "";

  constructor(readonly opts: OutputOptions) {}

  /** The command's result: JSON, or the human rendering. */
  result(data: unknown, human: () => string): void {
    this.clearProgress();
    process.stdout.write(this.opts.json ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
  }

  /** Progress while waiting for a signature, the API, the chain or the indexer (stderr; a spinner on a TTY). */
  progress = (p: Progress | string): void => {
    if (this.opts.quiet) return;
    const message = typeof p === "string" ? p : p.message;
    if (!process.stderr.isTTY) {
      process.stderr.write(`… ${message}\n`);
      return;
    }
    this.lastProgress = message;
    if (!this.spinnerTimer) {
      const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
      let i = 0;
      this.spinnerTimer = setInterval(() => {
        process.stderr.write(`\r\x1b[2K${frames[i++ % frames.length]} ${this.lastProgress}`);
      }, 100);
      this.spinnerTimer.unref();
    }
  };

  clearProgress(): void {
    if (this.spinnerTimer) {
      clearInterval(this.spinnerTimer);
      this.spinnerTimer = undefined;
      process.stderr.write("\r\x1b[2K");
    }
  }

  /** Prints the error (JSON on stdout with --json, so scripts read one document either way) and sets the code. */
  fail(error: unknown): number {
    this.clearProgress();
    const code = exitCodeOf(error);
    const e = error as Error;
    const body =
      error instanceof AgentHubError
        ? { error: { code: error.code, message: error.message.replace(`${error.code}: `, ""), status: error.status } }
        : { error: { code: e?.name ?? "Error", message: e?.message ?? String(error) } };
    if (this.opts.json) process.stdout.write(`${JSON.stringify({ ...body, exitCode: code }, null, 2)}\n`);
    process.stderr.write(`error: ${body.error.code}: ${body.error.message}\n`);
    return code;
  }
}
