import { createRoute, z } from "@hono/zod-openapi";
import { zeroAddress } from "viem";
import { router } from "../../lib/openapi.ts";
import { PRICES } from "../../payments/prices.ts";

const address = z.string().openapi({ example: "0x0000000000000000000000000000000000000000" });

const configSchema = z.object({
  chainId: z.number(),
  contracts: z.record(z.string(), address),
  usdc: z.object({ address, name: z.string(), version: z.string(), decimals: z.number() }),
  treasury: address,
  platformRecipient: address,
  paymentDomain: z.object({ name: z.string(), version: z.string(), chainId: z.number(), verifyingContract: address }),
  minimumStake: z.string(),
  platformFeeBps: z.number(),
  /** Price of each paid route: `spec` in the x-payment scheme's 18-decimal units, `usdc` in x402 base units. */
  prices: z.record(z.string(), z.object({ spec: z.string(), usdc: z.string(), description: z.string() })),
});

const getConfig = createRoute({
  method: "get",
  path: "/",
  tags: ["system"],
  responses: {
    200: {
      description: "Chain, contract addresses and payment domain",
      content: { "application/json": { schema: configSchema } },
    },
  },
});

export const configRoutes = router().openapi(getConfig, (c) => {
  const { deployments, env } = c.get("deps");
  return c.json(
    {
      chainId: deployments.chainId,
      contracts: Object.fromEntries(Object.entries(deployments.contracts).map(([name, d]) => [name, d.address])),
      usdc: deployments.usdc,
      treasury: deployments.treasury,
      platformRecipient: env.PLATFORM_RECIPIENT_ADDRESS,
      paymentDomain: {
        name: "AgentHub x402",
        version: "1",
        chainId: deployments.chainId,
        verifyingContract: zeroAddress,
      },
      minimumStake: "20000000",
      platformFeeBps: 500,
      prices: Object.fromEntries(
        Object.entries(PRICES).map(([path, p]) => [
          path,
          { spec: p.spec.toString(), usdc: p.usdc.toString(), description: p.description },
        ]),
      ),
    },
    200,
  );
});
