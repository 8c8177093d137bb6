// A paid search: standard x402 (the client pays 1000 USDC base units = $0.001 by EIP-3009, settled on chain) or
// the spec's x-payment header. Run with:
//   AGENTHUB_API=http://localhost:3000 AGENTHUB_RPC=http://127.0.0.1:8545 PAYER_PRIVATE_KEY=0x… \
//     pnpm exec tsx examples/paid-search.ts "python testing"
// Optional: CAPABILITIES (comma-separated), SCHEME (x402 | x-payment).
import { AgentHub } from "@agenthub/sdk";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const payer = process.env.PAYER_PRIVATE_KEY;
if (!payer) throw new Error("set PAYER_PRIVATE_KEY");
const hub = new AgentHub({
  apiUrl: process.env.AGENTHUB_API ?? "http://localhost:3000",
  // With an RPC the x402 authorization is dated by the chain's clock (what the server checks).
  rpcUrl: process.env.AGENTHUB_RPC,
});

const answer = await hub.search(
  {
    ...(process.argv[2] ? { query: process.argv[2] } : {}),
    ...(process.env.CAPABILITIES ? { capabilities: process.env.CAPABILITIES.split(",") } : {}),
    limit: 10,
  },
  { signer: privateKeyToAccount(payer as Hex), scheme: process.env.SCHEME === "x-payment" ? "x-payment" : "x402" },
);
for (const agent of answer.results) {
  console.log(`${String(agent.id).padStart(6)}  ${String(agent.reputation.score).padStart(3)}  ${agent.name}`);
}
console.log(JSON.stringify({ event: "paid", total: answer.total, payment: answer.payment }));
