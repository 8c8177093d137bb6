// agenthub orgs …: organizations (admin token, or the org key + secret), members, keys and webhooks.
import { readFileSync } from "node:fs";
import { AgentHubError } from "@agenthub/sdk";
import { verifyWebhook } from "@agenthub/sdk/webhooks";
import { Command, Option } from "commander";
import { action } from "../command.ts";
import { details, table } from "../output.ts";
import { list } from "../units.ts";

export function orgsCommand(): Command {
  const orgs = new Command("orgs").description(
    "organizations: --admin-token (or $AGENTHUB_ADMIN_TOKEN), or --api-key + --api-secret of the organization",
  );

  orgs
    .command("create")
    .description("create an organization (admin token); prints its keys and secret once")
    .requiredOption("--name <name>", "name")
    .requiredOption("--subdomain <subdomain>", "subdomain")
    .requiredOption("--email <email>", "admin email")
    .addOption(new Option("--plan <plan>", "plan").choices(["starter", "growth", "enterprise"]))
    .action(
      action(
        async (
          ctx,
          flags: { name: string; subdomain: string; email: string; plan?: "starter" | "growth" | "enterprise" },
        ) => {
          const res = await ctx.hub.organizations.create({
            name: flags.name,
            subdomain: flags.subdomain,
            adminEmail: flags.email,
            ...(flags.plan ? { plan: flags.plan } : {}),
          });
          ctx.out.result(res, () => details(res as never));
        },
      ),
    );

  orgs
    .command("show <orgId>")
    .description("an organization")
    .action(
      action(async (ctx, id: string) => {
        const res = await ctx.hub.organizations.get(id);
        ctx.out.result(res, () => details(res as never));
      }),
    );

  orgs
    .command("stats <orgId>")
    .description("usage and agents")
    .action(
      action(async (ctx, id: string) => {
        const res = await ctx.hub.organizations.stats(id);
        ctx.out.result(res, () => details(res as never));
      }),
    );

  orgs
    .command("rotate-key <orgId>")
    .description("rotate the live key (default), test key or secret; the old value works 7 more days unless --revoke")
    .addOption(new Option("--kind <kind>", "which credential").choices(["live", "test", "secret"]).default("live"))
    .option("--revoke", "end the previous value now (a leak)")
    .action(
      action(async (ctx, id: string, flags: { kind: "live" | "test" | "secret"; revoke?: boolean }) => {
        const res = await ctx.hub.organizations.rotateKey(id, {
          kind: flags.kind,
          revokePrevious: Boolean(flags.revoke),
        });
        ctx.out.result(res, () => details(res as never));
      }),
    );

  const members = orgs.command("members").description("team members");
  members
    .command("add <orgId>")
    .requiredOption("--email <email>", "email")
    .addOption(new Option("--role <role>", "role").choices(["admin", "developer", "viewer"]).default("developer"))
    .action(
      action(async (ctx, id: string, flags: { email: string; role: "admin" | "developer" | "viewer" }) => {
        const res = await ctx.hub.organizations.addMember(id, { email: flags.email, role: flags.role });
        ctx.out.result(res, () => details(res as never));
      }),
    );
  members.command("list <orgId>").action(
    action(async (ctx, id: string) => {
      const res = await ctx.hub.organizations.members(id);
      ctx.out.result(res, () => table((res as { members: Record<string, unknown>[] }).members));
    }),
  );
  members.command("remove <orgId> <memberId>").action(
    action(async (ctx, id: string, memberId: string) => {
      const res = await ctx.hub.organizations.removeMember(id, memberId);
      ctx.out.result(res ?? { success: true }, () => `removed ${memberId}`);
    }),
  );

  const webhooks = orgs.command("webhooks").description("signed event deliveries");
  webhooks
    .command("add <orgId>")
    .requiredOption("--url <url>", "receiver URL")
    .requiredOption("--events <list>", "comma-separated: agent.registered, bounty.created, bounty.completed, …")
    .option("--secret <secret>", "your own signing secret (default: a generated whsec_ secret, shown once)")
    .action(
      action(async (ctx, id: string, flags: { url: string; events: string; secret?: string }) => {
        const res = await ctx.hub.organizations.createWebhook(id, {
          url: flags.url,
          events: list(flags.events) as never,
          ...(flags.secret ? { secret: flags.secret } : {}),
        });
        ctx.out.result(res, () => details(res as never));
      }),
    );
  webhooks.command("list <orgId>").action(
    action(async (ctx, id: string) => {
      const res = await ctx.hub.organizations.webhooks(id);
      ctx.out.result(res, () => table((res as { webhooks: Record<string, unknown>[] }).webhooks));
    }),
  );
  webhooks.command("remove <orgId> <webhookId>").action(
    action(async (ctx, id: string, webhookId: string) => {
      const res = await ctx.hub.organizations.deleteWebhook(id, webhookId);
      ctx.out.result(res ?? { success: true }, () => `removed ${webhookId}`);
    }),
  );
  webhooks.command("deliveries <orgId> <webhookId>").action(
    action(async (ctx, id: string, webhookId: string) => {
      const res = await ctx.hub.organizations.deliveries(id, webhookId);
      ctx.out.result(res, () => table((res as { deliveries: Record<string, unknown>[] }).deliveries));
    }),
  );
  webhooks
    .command("verify")
    .description("check a received delivery: exit 0 and the event when authentic, exit 3 when forged or stale")
    .requiredOption("--secret <secret>", "the webhook's secret")
    .requiredOption("--body <file>", "the raw body as received")
    .requiredOption("--headers <file>", "the request headers as a JSON object")
    .action(
      action(async (ctx, flags: { secret: string; body: string; headers: string }) => {
        const headers = JSON.parse(readFileSync(flags.headers, "utf8")) as Record<string, string>;
        try {
          const event = await verifyWebhook({ secret: flags.secret, body: readFileSync(flags.body, "utf8"), headers });
          ctx.out.result(event, () => details(event as never));
        } catch (error) {
          if ((error as Error).name !== "WebhookVerificationError") throw error;
          throw new AgentHubError(401, "WEBHOOK_INVALID", (error as Error).message);
        }
      }),
    );

  return orgs;
}
