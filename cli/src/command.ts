// Glue between commander and the commands: global options -> Context, and an action wrapper.
import type { Command } from "commander";
import { Context, type GlobalOptions } from "./context.ts";

/** Wraps a command body: builds the Context from the global options; errors propagate to main (exit codes). */
export function action<A extends unknown[]>(body: (ctx: Context, ...args: A) => Promise<void>) {
  return async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    const ctx = new Context(cmd.optsWithGlobals() as GlobalOptions);
    await body(ctx, ...(args.slice(0, -1) as A));
  };
}
