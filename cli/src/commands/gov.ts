// agenthub gov propose|cancel|vote|show|list|delegate|power: proposals sent from your wallet, votes by signature (gasless).
import { Command, Option } from "commander";
import { type Address, encodeFunctionData, erc20Abi, type Hex, isAddress } from "viem";
import { action } from "../command.ts";
import { UsageError } from "../exit-codes.ts";
import { details, table } from "../output.ts";
import { usdc } from "../units.ts";

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function govCommand(): Command {
  const gov = new Command("gov").description("governance: proposals, gasless votes, voting power, treasury");

  gov
    .command("propose")
    .description("propose (you send the Governor transaction and pay gas; needs 100,000 delegated votes)")
    .requiredOption("--title <title>", "first line of the description")
    .option("--body <text>", "the rest of the description (markdown)", "")
    .option("--call <target:calldata>", "a call: target address and 0x calldata (repeatable)", collect)
    .option("--value <wei>", "ETH value per call (repeatable, default 0)", collect)
    .option("--transfer-usdc <to:amount>", "shortcut: the treasury pays `amount` USDC to `to` (repeatable)", collect)
    .action(
      action(
        async (
          ctx,
          flags: { title: string; body: string; call?: string[]; value?: string[]; transferUsdc?: string[] },
        ) => {
          const targets: Address[] = [];
          const calldatas: Hex[] = [];
          for (const c of flags.call ?? []) {
            const [target, data] = c.split(":");
            if (!target || !isAddress(target) || !data?.startsWith("0x"))
              throw new UsageError(`--call ${c}: expected <address>:<0x calldata>`);
            targets.push(target);
            calldatas.push(data as Hex);
          }
          if (flags.transferUsdc?.length) {
            const token = (await ctx.hub.config()).usdc.address as Address;
            for (const t of flags.transferUsdc) {
              const [to, amount] = t.split(":");
              if (!to || !isAddress(to) || !amount)
                throw new UsageError(`--transfer-usdc ${t}: expected <address>:<usdc>`);
              targets.push(token);
              calldatas.push(encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, usdc(amount)] }));
            }
          }
          if (targets.length === 0) throw new UsageError("a proposal needs at least one --call or --transfer-usdc");
          const values = targets.map((_, i) => flags.value?.[i] ?? "0");
          const description = flags.body ? `# ${flags.title}\n\n${flags.body}` : `# ${flags.title}`;
          const res = await ctx.hub.governance.propose({ description, targets, values, calldatas }, await ctx.wallet());
          ctx.out.result(res, () =>
            details((res as { proposal: Record<string, unknown> }).proposal, [
              "id",
              "status",
              "proposer",
              "voteStart",
              "voteEnd",
              "txHash",
            ]),
          );
        },
      ),
    );

  gov
    .command("cancel <proposalId>")
    .description("cancel your pending proposal (you send the Governor transaction and pay gas)")
    .action(
      action(async (ctx, proposalId: string) => {
        const res = await ctx.hub.governance.cancel(proposalId, await ctx.wallet());
        ctx.out.result(res, () =>
          details((res as { proposal: Record<string, unknown> }).proposal, ["id", "status", "proposer"]),
        );
      }),
    );

  gov
    .command("vote <proposalId>")
    .description("vote by EIP-712 ballot; the relayer submits it (no ETH needed)")
    .addOption(
      new Option("--support <support>", "your vote").choices(["for", "against", "abstain"]).makeOptionMandatory(),
    )
    .option("--reason <text>", "a reason, recorded on chain")
    .action(
      action(async (ctx, proposalId: string, flags: { support: "for" | "against" | "abstain"; reason?: string }) => {
        const res = await ctx.hub.governance.vote(proposalId, flags.support, await ctx.signer(), {
          reason: flags.reason,
        });
        ctx.out.result(
          res,
          () =>
            details(res as never, ["voter", "support", "weight", "txHash"]) +
            `\nfor        ${res.proposal.forVotes}\nagainst    ${res.proposal.againstVotes}`,
        );
      }),
    );

  gov
    .command("show <proposalId>")
    .description("a proposal with its tallies and state (read from the Governor)")
    .action(
      action(async (ctx, proposalId: string) => {
        const res = await ctx.hub.governance.proposal(proposalId);
        ctx.out.result(res, () =>
          details(res as never, [
            "id",
            "status",
            "proposer",
            "forVotes",
            "againstVotes",
            "abstainVotes",
            "voteStart",
            "voteEnd",
            "eta",
            "description",
          ]),
        );
      }),
    );

  gov
    .command("list")
    .description("proposals")
    .option("--status <status>", "pending, active, canceled, defeated, succeeded, queued, executed")
    .action(
      action(async (ctx, flags: { status?: string }) => {
        const res = await ctx.hub.governance.proposals(flags.status ? ({ status: flags.status } as never) : {});
        ctx.out.result(res, () =>
          table((res as { proposals: Record<string, unknown>[] }).proposals, [
            "id",
            "status",
            "forVotes",
            "againstVotes",
            "voteEnd",
          ]),
        );
      }),
    );

  gov
    .command("delegate [delegatee]")
    .description("give your token votes to an address (default: yourself); you send the transaction and pay gas")
    .action(
      action(async (ctx, delegatee?: string) => {
        if (delegatee !== undefined && !isAddress(delegatee)) throw new UsageError(`${delegatee}: not an address`);
        const res = await ctx.hub.governance.delegate(await ctx.wallet(), delegatee as Address | undefined);
        ctx.out.result(res, () => details({ txHash: res.txHash, delegatee: res.delegatee, ...res.holder } as never));
      }),
    );

  gov
    .command("power [address]")
    .description("balance, votes and delegation (default: your address)")
    .action(
      action(async (ctx, address?: string) => {
        const who = (address ?? (await ctx.signer()).address) as Address;
        const res = await ctx.hub.governance.votingPower(who);
        ctx.out.result(res, () => details(res as never));
      }),
    );

  return gov;
}
