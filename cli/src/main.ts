// agenthub: the AgentHub command line, built on @agenthub/sdk.
import { pathToFileURL } from "node:url";
import { Command, CommanderError, Option } from "commander";
import { agentsCommand } from "./commands/agents.ts";
import { govCommand } from "./commands/gov.ts";
import { balanceCommand, configCommand, faucetCommand, keysCommand } from "./commands/misc.ts";
import { orgsCommand } from "./commands/orgs.ts";
import { attestCommand, searchCommand } from "./commands/paid.ts";
import { runsCommand } from "./commands/runs.ts";
import { subsCommand } from "./commands/subs.ts";
import { ENV } from "./context.ts";
import { EXIT } from "./exit-codes.ts";
import { Output } from "./output.ts";

const collectHeader = (value: string, previous: string[]) => [...previous, value];

const EXIT_HELP = `
Keys (commands that sign): $${ENV.KEY}, or --keystore <file> / $${ENV.KEYSTORE} (an encrypted keystore v3 JSON;
password from $${ENV.KEYSTORE_PASSWORD} or a hidden prompt), or --prompt-key (hidden prompt). Never an argument.

Amounts are USDC decimals (--reward 10.5); JSON answers carry base units (6 decimals) as strings.

Exit codes:
  ${EXIT.OK}  done
  ${EXIT.INTERNAL}  unexpected failure (a bug)
  ${EXIT.USAGE}  bad arguments or missing key: nothing was sent
  ${EXIT.REFUSED}  the API refused the request (4xx; the error code says why); nothing changed
  ${EXIT.UNAVAILABLE}  API or chain unreachable, or a 5xx; retry
  ${EXIT.PENDING}  sent but not confirmed yet (TX_PENDING, INDEXER_LAGGING, PAYMENT_PENDING, RELAYER_TIMEOUT); run steps
     are followed first for --wait seconds (default 60)
  ${EXIT.CHAIN}  a transaction from your own wallet reverted or could not be sent
With --json, stdout holds one JSON document: the answer, or {"error": {code, message, status}, "exitCode"}.`;

export function program(): Command {
  const cli = new Command("agenthub")
    .description(
      "AgentHub from the command line: agents, stake, runs, paid search, attestations, orgs, subscriptions, governance",
    )
    .version("0.1.0")
    .addOption(new Option("--api <url>", "API base URL").env(ENV.API).default("http://localhost:3000"))
    .addOption(new Option("--rpc <url>", "chain JSON-RPC URL").env(ENV.RPC).default("http://127.0.0.1:8545"))
    .option("--json", "machine-readable output (one JSON document on stdout)", false)
    .option("-q, --quiet", "no progress on stderr", false)
    .option("--key-env <name>", "environment variable holding the private key", ENV.KEY)
    .option("--keystore <file>", "encrypted keystore v3 file holding the key")
    .option("--prompt-key", "ask for the private key (not echoed)")
    .option(
      "--wait <seconds>",
      "follow a run step answered TX_PENDING / INDEXER_LAGGING until it shows (progress on stderr), at most this long",
      "60",
    )
    .option("--no-wait", "exit 5 at once when a write is answered pending")
    .option("-H, --header <name:value>", "extra request header, e.g. for a gateway (repeatable)", collectHeader, [])
    .addOption(new Option("--api-key <key>", "organization API key").env(ENV.API_KEY))
    .addOption(new Option("--api-secret <secret>", "organization API secret").env(ENV.API_SECRET))
    .addOption(new Option("--admin-token <token>", "operator admin token").env(ENV.ADMIN_TOKEN))
    .addHelpText("after", EXIT_HELP)
    .showHelpAfterError("(add --help for usage)")
    .exitOverride();
  for (const sub of [
    agentsCommand(),
    runsCommand(),
    searchCommand(),
    attestCommand(),
    orgsCommand(),
    subsCommand(),
    govCommand(),
    keysCommand(),
    configCommand(),
    balanceCommand(),
    faucetCommand(),
  ]) {
    cli.addCommand(sub);
  }
  // Usage errors of subcommands also throw instead of exiting, so main maps them to exit code 2.
  const override = (cmd: Command) => {
    cmd.exitOverride();
    cmd.commands.forEach(override);
  };
  override(cli);
  return cli;
}

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const out = new Output({ json: argv.includes("--json"), quiet: argv.includes("--quiet") || argv.includes("-q") });
  try {
    await program().parseAsync(argv);
    return EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (["commander.helpDisplayed", "commander.version", "commander.help"].includes(error.code)) return EXIT.OK;
      return EXIT.USAGE;
    }
    return out.fail(error);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = await main(process.argv);
}
