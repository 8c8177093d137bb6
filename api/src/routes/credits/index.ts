// Pull-payment credits: a payment the escrow or the vault could not push (a USDC-blacklisted recipient) is credited
// to that account (docs/decisions.md, "Payments that fail are credited, never blocking"). The credited account asks
// for it with a signed request; the relayer sends `withdrawCredit(account)`, which pays only that account (and
// reverts while the token still refuses it).
import { RunEscrowAbi, StakeVaultAbi } from "@agenthub/common/generated/abis";
import { createRoute, z } from "@hono/zod-openapi";
import { type Address, getAddress, isAddressEqual } from "viem";
import type { Deps } from "../../context.ts";
import { errors } from "../../errors.ts";
import { router } from "../../lib/openapi.ts";
import { relayMapped } from "../../lib/relay-mapped.ts";
import { address, errorResponses, hexSignature, json, jsonBody } from "../../lib/schemas.ts";
import { verifySignedAction } from "../../lib/signed-action.ts";

const HOLDERS = ["RunEscrow", "StakeVault"] as const;
type Holder = (typeof HOLDERS)[number];
const ABIS = { RunEscrow: RunEscrowAbi, StakeVault: StakeVaultAbi } as const;

async function creditsOf(deps: Deps, account: Address): Promise<Record<Holder, bigint>> {
  const [escrow, vault] = await Promise.all(
    HOLDERS.map((name) =>
      deps.chain.readContract({
        address: deps.deployments.contracts[name].address,
        abi: ABIS[name] as typeof RunEscrowAbi,
        functionName: "creditOf",
        args: [account],
      }),
    ),
  );
  return { RunEscrow: escrow!, StakeVault: vault! };
}

const creditsView = z
  .object({
    account: z.string(),
    credits: z.object({ RunEscrow: z.string(), StakeVault: z.string() }).openapi({ description: "USDC base units" }),
    total: z.string(),
  })
  .openapi("Credits");

const getRoute = createRoute({
  method: "get",
  path: "/{address}",
  tags: ["credits"],
  summary: "What failed payments credited to an account (RunEscrow and StakeVault), in USDC base units",
  request: { params: z.object({ address: address.openapi({ param: { name: "address", in: "path" } }) }) },
  responses: { 200: json(creditsView, "Credits"), ...errorResponses(400) },
});

const withdrawRoute = createRoute({
  method: "post",
  path: "/withdraw",
  tags: ["credits"],
  summary:
    "The credited account withdraws its credits (signed: withdraw-credit:account:<address>); the relayer sends withdrawCredit, paid to the account only",
  request: {
    body: jsonBody(
      z
        .object({
          account: address,
          message: z.string().min(1).max(4000),
          signature: hexSignature,
        })
        .strict(),
    ),
  },
  responses: {
    200: json(
      creditsView.extend({
        withdrawn: z.array(z.object({ contract: z.enum(HOLDERS), amount: z.string(), txHash: z.string() })),
      }),
      "Paid out",
    ),
    ...errorResponses(400, 401, 403, 409),
  },
});

const view = (account: Address, credits: Record<Holder, bigint>) => ({
  account,
  credits: { RunEscrow: credits.RunEscrow.toString(), StakeVault: credits.StakeVault.toString() },
  total: (credits.RunEscrow + credits.StakeVault).toString(),
});

export const creditRoutes = router()
  .openapi(getRoute, async (c) => {
    const deps = c.get("deps");
    const account = getAddress(c.req.valid("param").address);
    return c.json(view(account, await creditsOf(deps, account)), 200);
  })
  .openapi(withdrawRoute, async (c) => {
    const deps = c.get("deps");
    const body = c.req.valid("json");
    const account = getAddress(body.account);
    const signer = await verifySignedAction(deps, body, { action: "withdraw-credit", kind: "account", id: account });
    if (!isAddressEqual(signer, account)) {
      throw errors.forbidden("NOT_CREDITED_ACCOUNT", `only ${account} may withdraw its credits`);
    }
    const credits = await creditsOf(deps, account);
    if (credits.RunEscrow === 0n && credits.StakeVault === 0n) {
      throw errors.conflict("NO_CREDIT", `${account} has no credit`);
    }
    const withdrawn: { contract: Holder; amount: string; txHash: string }[] = [];
    for (const contract of HOLDERS) {
      if (credits[contract] === 0n) continue;
      // Sequential: a still-blacklisted account fails on the first and nothing else is attempted.
      const result = await relayMapped(
        deps,
        contract,
        ABIS[contract] as typeof RunEscrowAbi,
        "withdrawCredit",
        [account],
        undefined,
        {
          Blacklisted: { status: 409, code: "ACCOUNT_BLOCKED" },
          RunEscrowNoCredit: { status: 409, code: "NO_CREDIT" },
          StakeVaultNoCredit: { status: 409, code: "NO_CREDIT" },
        },
      );
      withdrawn.push({ contract, amount: credits[contract].toString(), txHash: result.txHash });
    }
    return c.json({ ...view(account, await creditsOf(deps, account)), withdrawn }, 200);
  });
