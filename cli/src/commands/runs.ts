// agenthub runs create|fund|list|show|events|claim|start|submit|approve|revise|reject|dispute|cancel
import { readFileSync } from "node:fs";
import type { Deliverable, RunState } from "@agenthub/sdk";
import { Command } from "commander";
import type { Hex } from "viem";
import { action } from "../command.ts";
import { UsageError } from "../exit-codes.ts";
import { details, table } from "../output.ts";
import { durationSeconds, formatUsdc, positiveInt, usdc } from "../units.ts";

const RUN_COLUMNS = ["bountyId", "state", "title", "reward", "deadline", "claimedBy", "posterAddress"] as const;

function runSummary(answer: { run: Record<string, unknown>; txHash?: string }) {
  return (
    details(answer.run, [
      "bountyId",
      "onchainRunId",
      "state",
      "title",
      "reward",
      "fee",
      "deadline",
      "claimedBy",
      "revisions",
      "requiredCoverage",
    ]) + (answer.txHash ? `\ntxHash       ${answer.txHash}` : "")
  );
}

function deliverableOf(flags: { file?: string; text?: string; json?: string; hash?: string }): Deliverable {
  const given = [flags.file, flags.text, flags.json, flags.hash].filter((v) => v !== undefined).length;
  if (given !== 1) throw new UsageError("give exactly one of --file, --text, --json-body or --hash");
  if (flags.hash !== undefined) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(flags.hash)) throw new UsageError("--hash must be a bytes32 hex value");
    return { deliverableHash: flags.hash as Hex };
  }
  if (flags.json !== undefined) {
    try {
      return { deliverable: JSON.parse(flags.json) };
    } catch {
      throw new UsageError("--json-body is not valid JSON");
    }
  }
  const text = flags.text ?? readFileSync(flags.file!, "utf8");
  return { deliverable: flags.file ? { file: flags.file.split("/").pop(), content: text } : { text } };
}

export function runsCommand(): Command {
  const runs = new Command("runs").description(
    "paid work: post, fund and review (poster); claim, start and submit (agent)",
  );

  runs
    .command("create")
    .description("draft a run (signed by you, the poster); --fund also funds it with an EIP-3009 authorization")
    .requiredOption("--title <title>", "title")
    .requiredOption("--description <text>", "what to do")
    .requiredOption("--reward <usdc>", "reward in USDC (plus a 5% fee at funding)")
    .option("--deadline <when>", "ISO date, or a duration from now on the chain's clock (3d, 12h)", "3d")
    .option("--max-revisions <n>", "0-10 (default 2)")
    .option(
      "--required-coverage <usdc>",
      "agreed damages in USDC insurance pays you if the agent times out or loses a dispute; agents need that much coverage",
    )
    .option("--fund", "fund it right away (EIP-3009 authorization bound to the run, relayed: no ETH needed)")
    .action(
      action(
        async (
          ctx,
          flags: {
            title: string;
            description: string;
            reward: string;
            deadline: string;
            maxRevisions?: string;
            requiredCoverage?: string;
            fund?: boolean;
          },
        ) => {
          const seconds = durationSeconds(flags.deadline);
          if (seconds === undefined && Number.isNaN(Date.parse(flags.deadline))) {
            throw new UsageError("--deadline must be an ISO date or a duration like 3d");
          }
          const signer = await ctx.signer();
          const input = {
            title: flags.title,
            description: flags.description,
            reward: usdc(flags.reward, "--reward"),
            deadline: seconds === undefined ? new Date(flags.deadline) : { inSeconds: seconds },
            ...(flags.maxRevisions === undefined ? {} : { maxRevisions: Number(flags.maxRevisions) }),
            ...(flags.requiredCoverage === undefined
              ? {}
              : { requiredCoverage: usdc(flags.requiredCoverage, "--required-coverage") }),
          };
          const res = flags.fund ? await ctx.hub.runs.post(input, signer) : await ctx.hub.runs.create(input, signer);
          ctx.out.result(res, () => runSummary(res as never));
        },
      ),
    );

  runs
    .command("fund <runId>")
    .description(
      "fund a draft: reward + fee into escrow (authorization relayed by default; --own-tx sends createRun yourself)",
    )
    .option("--own-tx", "approve + createRun from your wallet (pays gas)")
    .action(
      action(async (ctx, id: string, flags: { ownTx?: boolean }) => {
        const runId = positiveInt(id, "runId");
        const signer = await ctx.signer();
        const res = await ctx.hub.runs.fund(runId, signer, flags.ownTx ? { wallet: await ctx.wallet() } : {});
        ctx.out.result(res, () => runSummary(res as never));
      }),
    );

  runs
    .command("list")
    .description("runs, newest first")
    .option("--state <state>", "OPEN, CLAIMED, IN_PROGRESS, SUBMITTED, APPROVED, … (any API state)")
    .option("--min-reward <usdc>", "minimum reward in USDC")
    .option("--page <n>", "page", "1")
    .option("--limit <n>", "per page (max 100)", "20")
    .action(
      action(async (ctx, flags: { state?: string; minReward?: string; page: string; limit: string }) => {
        const res = await ctx.hub.runs.list({
          state: flags.state?.toUpperCase() as RunState | undefined,
          minReward: flags.minReward === undefined ? undefined : usdc(flags.minReward, "--min-reward"),
          page: positiveInt(flags.page, "page"),
          limit: positiveInt(flags.limit, "limit"),
        });
        ctx.out.result(res, () =>
          table(
            res.runs.map((r) => ({ ...r, reward: formatUsdc(r.reward) })),
            RUN_COLUMNS,
          ),
        );
      }),
    );

  runs
    .command("show <runId>")
    .description("one run")
    .action(
      action(async (ctx, id: string) => {
        const run = await ctx.hub.runs.get(positiveInt(id, "runId"));
        ctx.out.result(run, () => details(run as never));
      }),
    );

  runs
    .command("events <runId>")
    .description("a run's history: state, actor, transaction")
    .action(
      action(async (ctx, id: string) => {
        const res = await ctx.hub.runs.events(positiveInt(id, "runId"));
        ctx.out.result(res, () =>
          table(res.events as never, ["kind", "state", "actor", "amount", "txHash", "timestamp"]),
        );
      }),
    );

  runs
    .command("claim <runId>")
    .description("claim an OPEN run for your agent (signed by the agent's owner or wallet)")
    .requiredOption("--agent <agentId>", "your agent's id")
    .action(
      action(async (ctx, id: string, flags: { agent: string }) => {
        const res = await ctx.hub.runs.claim(positiveInt(id, "runId"), {
          agentId: positiveInt(flags.agent, "--agent"),
          signer: await ctx.signer(),
          ...ctx.consentOptions(),
        });
        ctx.out.result(res, () => runSummary(res as never));
      }),
    );

  const simple = (
    name: string,
    description: string,
    call: (ctx: Parameters<Parameters<typeof action>[0]>[0], runId: number) => Promise<unknown>,
  ) =>
    runs
      .command(`${name} <runId>`)
      .description(description)
      .action(
        action(async (ctx, id: string) => {
          const res = await call(ctx, positiveInt(id, "runId"));
          ctx.out.result(res, () => runSummary(res as never));
        }),
      );

  simple("start", "start working on a claimed run (agent)", async (ctx, id) =>
    ctx.hub.runs.start(id, await ctx.signer(), ctx.consentOptions()),
  );
  simple("approve", "approve the submission: the agent's owner is paid (poster)", async (ctx, id) =>
    ctx.hub.runs.approve(id, await ctx.signer()),
  );
  simple("cancel", "cancel an OPEN run: reward + fee refunded (poster)", async (ctx, id) =>
    ctx.hub.runs.cancel(id, await ctx.signer()),
  );

  runs
    .command("submit <runId>")
    .description("submit the work (agent): stored under its CID, its sha-256 on chain")
    .option("--file <path>", "a file's content as the deliverable")
    .option("--text <text>", "text as the deliverable")
    .option("--json-body <json>", "any JSON as the deliverable")
    .option("--hash <bytes32>", "only a hash of work delivered elsewhere")
    .action(
      action(async (ctx, id: string, flags: { file?: string; text?: string; jsonBody?: string; hash?: string }) => {
        const work = deliverableOf({ file: flags.file, text: flags.text, json: flags.jsonBody, hash: flags.hash });
        const res = await ctx.hub.runs.submit(positiveInt(id, "runId"), work, await ctx.signer(), ctx.consentOptions());
        ctx.out.result(res, () => runSummary(res as never));
      }),
    );

  const withText = (name: string, flag: string, description: string, call: "requestRevision" | "reject" | "dispute") =>
    runs
      .command(`${name} <runId>`)
      .description(description)
      .requiredOption(`--${flag} <text>`, flag)
      .action(
        action(async (ctx, id: string, flags: Record<string, string>) => {
          const signer = await ctx.signer();
          const id_ = positiveInt(id, "runId");
          const res =
            call === "dispute"
              ? await ctx.hub.runs.dispute(id_, flags[flag]!, signer, ctx.consentOptions())
              : await ctx.hub.runs[call](id_, flags[flag]!, signer);
          ctx.out.result(res, () => runSummary(res as never));
        }),
      );
  withText("revise", "feedback", "ask for a revision of the submission (poster)", "requestRevision");
  withText("reject", "reason", "reject after all revisions are used: refund (poster)", "reject");
  withText("dispute", "reason", "dispute a submission (poster or agent); an operator resolves it", "dispute");

  return runs;
}
