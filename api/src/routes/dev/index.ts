import { createRoute, z } from "@hono/zod-openapi";
import { isAddress } from "viem";
import { router } from "../../lib/openapi.ts";
import { isolationProbeRoutes } from "./org-scope.ts";

const uint = z.string().regex(/^\d+$/, "unsigned integer in base units");

const faucet = createRoute({
  method: "post",
  path: "/faucet",
  tags: ["dev"],
  summary: "Local chains only: mint test USDC and send ETH to an address",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            address: z.string().refine((v) => isAddress(v), "a 0x address"),
            usdc: uint.default("0").openapi({ description: "USDC base units (6 decimals)" }),
            eth: uint.default("0").openapi({ description: "wei" }),
          }),
        },
      },
    },
  },
  responses: {
    200: {
      description: "Funded",
      content: {
        "application/json": {
          schema: z.object({ address: z.string(), usdcTx: z.string().optional(), ethTx: z.string().optional() }),
        },
      },
    },
  },
});

const MAX_USDC = 1_000_000n * 10n ** 6n;
const MAX_ETH = 10n * 10n ** 18n;

export const devRoutes = router()
  .openapi(faucet, async (c) => {
    const { relayer } = c.get("deps");
    const body = c.req.valid("json");
    const usdc = BigInt(body.usdc);
    const eth = BigInt(body.eth);
    if (usdc > MAX_USDC || eth > MAX_ETH) {
      return c.json(
        { error: { code: "VALIDATION_ERROR", message: "at most 1,000,000 USDC and 10 ETH per call" } },
        400,
      ) as never;
    }
    const out = await relayer.faucet(body.address as `0x${string}`, usdc, eth);
    return c.json({ address: body.address, ...out }, 200);
  })
  .route("/", isolationProbeRoutes);
