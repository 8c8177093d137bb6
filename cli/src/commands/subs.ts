// agenthub subs …: recurring runs from a natural-language cadence, prepaid in USDC from your wallet.
import { Command } from "commander";
import type { Hex } from "viem";
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
            `${details(res.detected as never)}\ntotal      ${formatUsdc(res.costs.total)}\npay to     ${res.paymentAddress}`,
        );
      }),
    );

  subs
    .command("create <instructions>")
    .description("create: transfers the total from your wallet (pays gas) unless --tx names your own transfer")
    .requiredOption("--reward <usdc>", "reward per run in USDC")
    .option("--tx <hash>", "a USDC transfer you already sent to the payment address")
    .option("--amount <usdc>", "prepay this much instead of the whole total (at least one run)")
    .action(
      action(async (ctx, instructions: string, flags: { reward: string; tx?: string; amount?: string }) => {
        const signer = await ctx.signer();
        const res = await ctx.hub.subscriptions.create(
          {
            instructions,
            rewardPerRun: usdc(flags.reward, "--reward"),
            ...(flags.tx ? { txHash: flags.tx as Hex } : { wallet: await ctx.wallet() }),
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
      const res = await ctx.hub.subscriptions.get(positiveInt(id, "id"));
      ctx.out.result(res, () => `${details(res.subscription as never)}\n\n${table(res.runs as never)}`);
    }),
  );

  subs
    .command("topup <id>")
    .requiredOption("--amount <usdc>", "USDC to add (transferred from your wallet unless --tx)")
    .option("--tx <hash>", "a transfer you already sent")
    .action(
      action(async (ctx, id: string, flags: { amount: string; tx?: string }) => {
        const signer = await ctx.signer();
        const res = await ctx.hub.subscriptions.topUp(
          positiveInt(id, "id"),
          { amount: usdc(flags.amount), ...(flags.tx ? { txHash: flags.tx as Hex } : { wallet: await ctx.wallet() }) },
          signer,
        );
        ctx.out.result(res, () => details(res.subscription as never));
      }),
    );

  for (const verb of ["pause", "resume", "cancel"] as const) {
    subs
      .command(`${verb} <id>`)
      .description(verb === "cancel" ? "cancel; the remaining balance is forfeited" : `${verb} the subscription`)
      .action(
        action(async (ctx, id: string) => {
          const res = await ctx.hub.subscriptions[verb](positiveInt(id, "id"), await ctx.signer());
          ctx.out.result(res, () => details(res.subscription as never));
        }),
      );
  }
  return subs;
}
