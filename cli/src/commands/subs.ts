// agenthub subs …: recurring runs from a natural-language cadence, prepaid in USDC into the SubscriptionVault by
// permit (you sign; the relayer sends, no ETH needed). Cancelling refunds the unspent balance to you.
import { Command } from "commander";
import { action } from "../command.ts";
import { details, table } from "../output.ts";
import { formatUsdc, positiveInt, usdc } from "../units.ts";

export function subsCommand(): Command {
  const subs = new Command("subs").description("subscriptions: recurring runs, prepaid in USDC");

  subs
    .command("preview <instructions>")
    .description("what the instructions mean and cost (no signature)")
    .requiredOption("--reward <usdc>", "reward per run in USDC")
    .action(
      action(async (ctx, instructions: string, flags: { reward: string }) => {
        const res = await ctx.hub.subscriptions.preview(instructions, usdc(flags.reward, "--reward"));
        ctx.out.result(
          res,
          () =>
            `${details(res.detected as never)}\n${res.costs.total === null ? `per run    ${formatUsdc(res.costs.totalPerRun)} (open-ended)` : `total      ${formatUsdc(res.costs.total)}`}\nvault      ${res.vault}`,
        );
      }),
    );

  subs
    .command("create <instructions>")
    .description("create: prepays the whole total (one run if open-ended) into the vault by permit")
    .requiredOption("--reward <usdc>", "reward per run in USDC")
    .option("--amount <usdc>", "prepay this much instead (at least one run)")
    .action(
      action(async (ctx, instructions: string, flags: { reward: string; amount?: string }) => {
        const signer = await ctx.signer();
        const res = await ctx.hub.subscriptions.create(
          {
            instructions,
            rewardPerRun: usdc(flags.reward, "--reward"),
            ...(flags.amount ? { amount: usdc(flags.amount, "--amount") } : {}),
          },
          signer,
        );
        ctx.out.result(res, () => details(res.subscription as never));
      }),
    );

  subs
    .command("list")
    .option("--poster <address>", "only this poster's")
    .option("--status <status>", "ACTIVE, PAUSED, EXHAUSTED, COMPLETED, CANCELLED")
    .action(
      action(async (ctx, flags: { poster?: string; status?: string }) => {
        const res = await ctx.hub.subscriptions.list({
          ...(flags.poster ? { posterAddress: flags.poster } : {}),
          ...(flags.status ? { status: flags.status.toUpperCase() } : {}),
        } as never);
        ctx.out.result(res, () =>
          table(res.subscriptions as never, [
            "id",
            "status",
            "cadence",
            "rewardPerRun",
            "runsCreated",
            "totalRuns",
            "balanceRemaining",
          ]),
        );
      }),
    );

  subs.command("show <id>").action(
    action(async (ctx, id: string) => {
      const subscription = await ctx.hub.subscriptions.get(positiveInt(id, "id"));
      const { runs } = await ctx.hub.subscriptions.runs(positiveInt(id, "id"), { limit: 100 });
      ctx.out.result({ subscription, runs }, () => `${details(subscription as never)}\n\n${table(runs as never)}`);
    }),
  );

  subs
    .command("topup <id>")
    .requiredOption("--amount <usdc>", "USDC to add from your wallet (by permit)")
    .action(
      action(async (ctx, id: string, flags: { amount: string }) => {
        const signer = await ctx.signer();
        const res = await ctx.hub.subscriptions.topUp(positiveInt(id, "id"), { amount: usdc(flags.amount) }, signer);
        ctx.out.result(res, () => details(res.subscription as never));
      }),
    );

  for (const verb of ["pause", "resume", "cancel"] as const) {
    subs
      .command(`${verb} <id>`)
      .description(
        verb === "cancel" ? "cancel; the vault refunds the unspent balance to you" : `${verb} the subscription`,
      )
      .action(
        action(async (ctx, id: string) => {
          const res = await ctx.hub.subscriptions[verb](positiveInt(id, "id"), await ctx.signer());
          ctx.out.result(res, () => details(res.subscription as never));
        }),
      );
  }
  return subs;
}
