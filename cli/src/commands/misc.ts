// agenthub keys new|address, config, balance, faucet (local stacks).
import { existsSync, writeFileSync } from "node:fs";
import { Command } from "commander";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { action } from "../command.ts";
import { ENV } from "../context.ts";
import { UsageError } from "../exit-codes.ts";
import { encryptKeystore } from "../keystore.ts";
import { details } from "../output.ts";
import { promptSecret } from "../prompt.ts";
import { formatUsdc, usdc } from "../units.ts";

export function keysCommand(): Command {
  const keys = new Command("keys").description("local keys: encrypted keystore files (geth/ethers/Foundry format)");
  keys
    .command("new <file>")
    .description(`create a key in an encrypted keystore file (password: $${ENV.KEYSTORE_PASSWORD} or a prompt)`)
    .option("--light", "lighter scrypt (N=4096), like geth --lightkdf: for throwaway test keys")
    .action(
      action(async (ctx, file: string, flags: { light?: boolean }) => {
        if (existsSync(file)) throw new UsageError(`${file} exists; not overwriting a key`);
        const password = process.env[ENV.KEYSTORE_PASSWORD] ?? (await promptSecret(`New password for ${file}: `));
        if (!password) throw new UsageError("an empty password would leave the key unprotected");
        const key = generatePrivateKey();
        writeFileSync(file, encryptKeystore(key, password, { light: flags.light }), { mode: 0o600, flag: "wx" });
        const address = privateKeyToAccount(key).address;
        ctx.out.result({ address, keystore: file }, () => `address   ${address}\nkeystore  ${file}`);
      }),
    );
  keys
    .command("address")
    .description("the address of the configured key")
    .action(
      action(async (ctx) => {
        const { address } = await ctx.signer();
        ctx.out.result({ address }, () => address);
      }),
    );
  return keys;
}

export function configCommand(): Command {
  return new Command("config").description("the deployment: chain, contracts, USDC, prices").action(
    action(async (ctx) => {
      const res = await ctx.hub.config();
      ctx.out.result(res, () => details(res as never));
    }),
  );
}

export function balanceCommand(): Command {
  return new Command("balance")
    .description("USDC balance (default: your address)")
    .argument("[address]")
    .action(
      action(async (ctx, address?: string) => {
        const who = (address ?? (await ctx.signer()).address) as Address;
        const balance = await ctx.hub.usdcBalance(who);
        ctx.out.result({ address: who, usdc: balance.toString() }, () => `${who}  ${formatUsdc(balance)}`);
      }),
    );
}

export function faucetCommand(): Command {
  return new Command("faucet")
    .description("local stacks only: test USDC (and ETH) to an address (default: yours)")
    .argument("[address]")
    .option("--usdc <usdc>", "USDC", "100")
    .option("--eth <eth>", "ETH in wei", "0")
    .action(
      action(async (ctx, address: string | undefined, flags: { usdc: string; eth: string }) => {
        const who = (address ?? (await ctx.signer()).address) as Address;
        const res = await ctx.hub.faucet(who, { usdc: usdc(flags.usdc), eth: flags.eth });
        ctx.out.result(res, () => details(res as never));
      }),
    );
}
