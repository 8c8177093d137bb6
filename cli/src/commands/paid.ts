// agenthub search | agenthub attest: paid calls (x402 USDC by default, or the spec's x-payment).
import { Command, Option } from "commander";
import { action } from "../command.ts";
import { details, table } from "../output.ts";
import { list, positiveInt } from "../units.ts";

const payOption = () =>
  new Option("--pay <scheme>", "x402: USDC settled on chain (EIP-3009); x-payment: the spec's signed Payment")
    .choices(["x402", "x-payment"])
    .default("x402");

export function searchCommand(): Command {
  return new Command("search")
    .description("paid agent search ($0.001): full text and filters, best reputation first")
    .argument("[query...]", "full-text query (all words)")
    .option("--capabilities <list>", "all of, comma-separated")
    .option("--tools <list>", "all of, comma-separated")
    .option("--langs <list>", "any of, comma-separated")
    .option("--domains <list>", "any of, comma-separated")
    .option("--min-score <n>", "minimum reputation score 0-100")
    .option("--min-uptime <n>", "minimum uptime percentage")
    .option("--verified", "only agents with a verification badge")
    .option("--limit <n>", "results (max 100)", "20")
    .addOption(payOption())
    .action(
      action(
        async (
          ctx,
          words: string[],
          flags: {
            capabilities?: string;
            tools?: string;
            langs?: string;
            domains?: string;
            minScore?: string;
            minUptime?: string;
            verified?: boolean;
            limit: string;
            pay: "x402" | "x-payment";
          },
        ) => {
          const query = {
            ...(words.length ? { query: words.join(" ") } : {}),
            ...(flags.capabilities ? { capabilities: list(flags.capabilities) } : {}),
            ...(flags.tools ? { tools: list(flags.tools) } : {}),
            ...(flags.langs ? { programmingLangs: list(flags.langs) } : {}),
            ...(flags.domains ? { domains: list(flags.domains) } : {}),
            ...(flags.minScore ? { minScore: Number(flags.minScore) } : {}),
            ...(flags.minUptime ? { minUptime: Number(flags.minUptime) } : {}),
            ...(flags.verified ? { verifiedOnly: true } : {}),
            limit: positiveInt(flags.limit, "--limit"),
          };
          const res = await ctx.hub.search(query as never, { signer: await ctx.signer(), scheme: flags.pay });
          ctx.out.result(res, () => {
            const rows = res.results.map((r) => ({
              id: r.id,
              name: r.name,
              score: r.reputation?.score,
              capabilities: r.capabilities?.join(","),
              wallet: r.walletAddress,
            }));
            const paid = res.payment.txHash ? ` (paid ${res.payment.amount} base units, tx ${res.payment.txHash})` : "";
            return `${table(rows)}\n${res.total} match(es)${res.totalExact ? "" : " (estimate)"}${paid}`;
          });
        },
      ),
    );
}

export function attestCommand(): Command {
  return new Command("attest")
    .description("paid attestation ($0.005) by your agent about another; you pay as its wallet or owner")
    .requiredOption("--attestor <agentId>", "your agent")
    .requiredOption("--subject <agentId>", "the agent you attest about")
    .requiredOption("--category <category>", "e.g. reliability, expertise, communication")
    .requiredOption("--rating <1-5>", "integer rating")
    .option("--comment <text>", "comment")
    .addOption(payOption())
    .action(
      action(
        async (
          ctx,
          flags: {
            attestor: string;
            subject: string;
            category: string;
            rating: string;
            comment?: string;
            pay: "x402" | "x-payment";
          },
        ) => {
          const res = await ctx.hub.attestations.create(
            {
              attestorId: positiveInt(flags.attestor, "--attestor"),
              subjectId: positiveInt(flags.subject, "--subject"),
              category: flags.category,
              rating: Number(flags.rating),
              ...(flags.comment === undefined ? {} : { comment: flags.comment }),
            },
            { signer: await ctx.signer(), scheme: flags.pay },
          );
          ctx.out.result(res, () => details(res as never));
        },
      ),
    );
}
