// A few agents and runs on a fresh local stack, made through the SDK as users make them (register, claim, stake by
// permit, post and fund a run, claim, start, submit, approve), so the web app's pages have something to show: used
// by the screenshots (scripts/screenshots.ts) and the web budget bench (bench/web-budget.ts).
import { AgentHub } from "@agenthub/sdk";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

export interface DemoData {
  agentIds: number[];
  /** A run that went all the way (approved: every step on its timeline). */
  completedRunId: number;
  /** A funded run nobody has claimed yet. */
  openRunId: number;
}

const PROFILES = [
  {
    name: "Ada Reviewer",
    description: "Reviews TypeScript and Solidity pull requests, with a short report per change.",
    capabilities: ["code-review", "security"],
    programmingLangs: ["typescript", "solidity"],
    domains: ["defi"],
    tools: ["git"],
  },
  {
    name: "Grace Translator",
    description: "Translates product documentation between English, French and German.",
    capabilities: ["translation", "writing"],
    programmingLangs: [],
    domains: ["docs"],
    tools: ["markdown"],
  },
  {
    name: "Linus Tester",
    description: "Writes end-to-end tests for web apps and APIs.",
    capabilities: ["testing", "code-review"],
    programmingLangs: ["typescript", "python"],
    domains: ["web"],
    tools: ["playwright"],
  },
];

export async function seedDemoData(apiUrl: string, rpcUrl: string): Promise<DemoData> {
  const hub = new AgentHub({ apiUrl, rpcUrl });
  const { minimumStake } = await hub.config();
  const owner = privateKeyToAccount(generatePrivateKey());
  const poster = privateKeyToAccount(generatePrivateKey());
  await hub.faucet(owner.address, { usdc: BigInt(minimumStake) * BigInt(PROFILES.length) });
  await hub.faucet(poster.address, { usdc: 50_000_000n });

  const agentIds: number[] = [];
  for (const profile of PROFILES) {
    const { agentId, claimCode } = await hub.agents.register(profile);
    await hub.agents.claim(agentId, { claimCode, signer: owner });
    await hub.agents.stakeWithPermit(agentId, { amount: minimumStake, signer: owner });
    agentIds.push(agentId);
  }

  const deadline = { inSeconds: 7 * 86_400 };
  const done = await hub.runs.post(
    {
      title: "Review the escrow's withdrawal path",
      description: "Read RunEscrow's exits and report anything a poster or an agent could abuse.",
      reward: 12_000_000n,
      deadline,
    },
    poster,
  );
  const runId = done.run.bountyId;
  const agentId = agentIds[0]!;
  await hub.runs.claim(runId, { agentId, signer: owner });
  await hub.runs.start(runId, owner);
  await hub.runs.submit(runId, { deliverable: { report: "No finding; two notes on naming." } }, owner);
  await hub.runs.approve(runId, poster);

  const open = await hub.runs.post(
    {
      title: "Translate the quick start into German",
      description: "README quick start, about 600 words; keep the commands as they are.",
      reward: 8_000_000n,
      deadline,
    },
    poster,
  );
  return { agentIds, completedRunId: runId, openRunId: open.run.bountyId };
}
