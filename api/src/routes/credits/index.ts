// Pull-payment credits: a payment the escrow or the vault could not push (a USDC-blacklisted recipient) is credited
// to that account (docs/decisions.md, "Payments that fail are credited, never blocking"). The credited account asks
// for it with a signed request; the relayer sends `withdrawCredit(account)`, which pays only that account (and
// reverts while the token still refuses it). The rules are in use-cases/credits/.
import { createRoute, z } from "@hono/zod-openapi";
import { getAddress } from "viem";
import { router } from "../../lib/openapi.ts";
import { address, errorResponses, hexSignature, json, jsonBody } from "../../lib/schemas.ts";
import { CREDIT_HOLDERS } from "../../use-cases/credits/credits.ts";
import { getCredits } from "../../use-cases/credits/get-credits.ts";
import { withdrawCredits } from "../../use-cases/credits/withdraw-credits.ts";

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
        withdrawn: z.array(z.object({ contract: z.enum(CREDIT_HOLDERS), amount: z.string(), txHash: z.string() })),
      }),
      "Paid out",
    ),
    ...errorResponses(400, 401, 403, 409),
  },
});

export const creditRoutes = router()
  .openapi(getRoute, async (c) =>
    c.json(await getCredits(c.get("deps"), getAddress(c.req.valid("param").address)), 200),
  )
  .openapi(withdrawRoute, async (c) => c.json(await withdrawCredits(c.get("deps"), c.req.valid("json")), 200));
