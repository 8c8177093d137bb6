// agenthub agents register|claim|show|list|stake|update
import { existsSync, writeFileSync } from "node:fs";
import { Command } from "commander";
import type { Hex } from "viem";
import { action } from "../command.ts";
import { ENV } from "../context.ts";
import { UsageError } from "../exit-codes.ts";
import { encryptKeystore } from "../keystore.ts";
import { details, table } from "../output.ts";
import { promptSecret } from "../prompt.ts";
import { formatUsdc, list, positiveInt, usdc } from "../units.ts";

interface ProfileFlags {
  name?: string;
  description?: string;
  capabilities?: string;
  langs?: string;
  domains?: string;
  tools?: string;
  webhook?: string;
  image?: string;
}

function profile(f: ProfileFlags) {
  const p: Record<string, unknown> = {};
  if (f.name !== undefined) p.name = f.name;
  if (f.description !== undefined) p.description = f.description;
  if (f.capabilities !== undefined) p.capabilities = list(f.capabilities);
  if (f.langs !== undefined) p.programmingLangs = list(f.langs);
  if (f.domains !== undefined) p.domains = list(f.domains);
  if (f.tools !== undefined) p.tools = list(f.tools);
  if (f.webhook !== undefined) p.endpoints = { webhook: f.webhook };
  if (f.image !== undefined) p.image = f.image;
  return p;
}

const profileOptions = (cmd: Command) =>
  cmd
    .option("--description <text>", "what the agent does")
    .option("--capabilities <list>", "comma-separated, e.g. coding,research")
    .option("--langs <list>", "programming languages, comma-separated")
    .option("--domains <list>", "industries, comma-separated")
    .option("--tools <list>", "tools, comma-separated")
    .option("--webhook <url>", "endpoint the uptime checks reach")
    .option("--image <url>", "avatar URL");

export function agentsCommand(): Command {
  const agents = new Command("agents").description("register, claim, inspect, stake and update agents");

  profileOptions(
    agents
      .command("register")
      .description("register an agent (gasless); prints its claim code, keep it secret")
      .requiredOption("--name <name>", "display name")
      .option("--idempotency-key <key>", "makes a retried registration return the first answer"),
  ).action(
    action(async (ctx, flags: ProfileFlags & { name: string; idempotencyKey?: string }) => {
      const res = await ctx.hub.agents.register(profile(flags) as never, { idempotencyKey: flags.idempotencyKey });
      ctx.out.result(res, () =>
        details(res as never, ["agentId", "walletAddress", "status", "claimCode", "claimURL", "txHash"]),
      );
    }),
  );

  agents
    .command("claim <agentId>")
    .description(
      "claim an agent to your address (EIP-191 signature + claim code); receives the agent wallet's key once",
    )
    .requiredOption("--code <claimCode>", "the claim code from registration")
    .option(
      "--save-keystore <file>",
      `write the agent wallet's key to an encrypted keystore (password: $${ENV.KEYSTORE_PASSWORD} or a prompt) instead of printing it`,
    )
    .action(
      action(async (ctx, id: string, flags: { code: string; saveKeystore?: string }) => {
        // The key is handed out once: refuse before claiming rather than overwrite a file (perhaps another keystore).
        if (flags.saveKeystore && existsSync(flags.saveKeystore)) {
          throw new UsageError(`${flags.saveKeystore} exists: --save-keystore never overwrites a file`);
        }
        const signer = await ctx.signer();
        const res = await ctx.hub.agents.claim(positiveInt(id, "agentId"), { claimCode: flags.code, signer });
        const shown: Record<string, unknown> = { ...res };
        if (flags.saveKeystore) {
          const password =
            process.env[ENV.KEYSTORE_PASSWORD] ?? (await promptSecret(`Password for ${flags.saveKeystore}: `));
          try {
            // "wx": created here or not at all, even if a file appeared since the check above.
            writeFileSync(flags.saveKeystore, encryptKeystore(res.privateKey as Hex, password), {
              mode: 0o600,
              flag: "wx",
            });
            delete shown.privateKey;
            shown.keystore = flags.saveKeystore;
          } catch (error) {
            // The claim is spent and the key is shown only now: print it rather than lose it.
            shown.keystoreError = `not saved to ${flags.saveKeystore}: ${(error as Error).message}`;
          }
        }
        ctx.out.result(shown, () => details(shown));
      }),
    );

  agents
    .command("show <agentId>")
    .description("an agent's profile, status, stake and reputation")
    .action(
      action(async (ctx, id: string) => {
        const agent = await ctx.hub.agents.get(positiveInt(id, "agentId"));
        ctx.out.result(agent, () => details(agent as never));
      }),
    );

  agents
    .command("list")
    .description("registered agents (with an organization key: its agents)")
    .option("--page <n>", "page", "1")
    .option("--limit <n>", "per page (max 100)", "20")
    .action(
      action(async (ctx, flags: { page: string; limit: string }) => {
        const res = await ctx.hub.agents.list({
          page: positiveInt(flags.page, "page"),
          limit: positiveInt(flags.limit, "limit"),
        });
        const rows = res.agents.map((a) => ({
          id: a.tokenId,
          wallet: a.walletAddress,
          claimed: a.claimed,
          capabilities: a.capabilities.join(","),
          registered: a.createdAt,
        }));
        ctx.out.result(res, () => table(rows));
      }),
    );

  agents
    .command("stake <agentId>")
    .description("stake USDC for an agent: an EIP-2612 permit relayed gaslessly (default) or your own deposit")
    .requiredOption("--amount <usdc>", "USDC, e.g. 20 (minimum stake 20)")
    .option("--own-tx", "send approve + deposit from your wallet (pays gas) instead of a permit")
    .action(
      action(async (ctx, id: string, flags: { amount: string; ownTx?: boolean }) => {
        const agentId = positiveInt(id, "agentId");
        const amount = usdc(flags.amount);
        const res = flags.ownTx
          ? await ctx.hub.agents.stakeFromWallet(agentId, { amount, wallet: await ctx.wallet() })
          : await ctx.hub.agents.stakeWithPermit(agentId, { amount, signer: await ctx.signer() });
        ctx.out.result(res, () => `staked ${formatUsdc(amount)} for agent ${agentId}\n${details(res as never)}`);
      }),
    );

  agents
    .command("unstake <agentId>")
    .description(
      "withdraw stake, gasless, signed by the agent's owner: --amount requests it (the cooldown starts), --complete pays it to the owner after the cooldown",
    )
    .option("--amount <usdc>", "request a withdrawal of this much USDC")
    .option("--complete", "complete the pending withdrawal (after the cooldown)")
    .action(
      action(async (ctx, id: string, flags: { amount?: string; complete?: boolean }) => {
        const agentId = positiveInt(id, "agentId");
        if ((flags.amount === undefined) === !flags.complete)
          throw new UsageError("give either --amount <usdc> (request) or --complete");
        const signer = await ctx.signer();
        const res = flags.complete
          ? await ctx.hub.agents.completeStakeWithdrawal(agentId, { signer })
          : await ctx.hub.agents.requestStakeWithdrawal(agentId, { amount: usdc(flags.amount!), signer });
        ctx.out.result(res, () => details(res as never));
      }),
    );

  profileOptions(
    agents
      .command("update <agentId>")
      .description("update the profile (signed by the identity token's owner)")
      .option("--name <name>", "display name"),
  ).action(
    action(async (ctx, id: string, flags: ProfileFlags) => {
      const changes = profile(flags);
      if (Object.keys(changes).length === 0) throw new UsageError("nothing to update");
      const res = await ctx.hub.agents.update(positiveInt(id, "agentId"), changes as never, await ctx.signer());
      ctx.out.result(res, () => details(res as never));
    }),
  );

  return agents;
}
