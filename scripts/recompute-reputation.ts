// Recomputes published reputation scores from the chain and the published off-chain inputs, and checks them against
// the API. For each agent: the inputs document (GET /api/reputation/{id}/inputs) is fetched again by its content
// address (/ipfs/{cid}) and the bytes must hash to that CID; its chain facts (registration time, counted claims,
// completions, failures) must equal what AgentIdentity and RunEscrow events up to its computedAt give under the
// indexer's counting rule; and the formula (api/src/domain/reputation.ts), fed with the replayed chain facts and the
// document's off-chain inputs, must give the score the API serves. Exit code 0 when every agent matches, 1 otherwise.
//
//   pnpm exec tsx scripts/recompute-reputation.ts [--api <url>] [--rpc <url>] [--from-block <n>] [agentId ...]
//
// Without ids it checks every agent registered on chain. docs/reputation.md documents the formula and the inputs.
import { isDeepStrictEqual, parseArgs } from "node:util";
import { AgentIdentityAbi, RunEscrowAbi } from "@agenthub/common/generated/abis";
import { type Address, createPublicClient, http } from "viem";
import { computeScores } from "../api/src/domain/reputation.ts";
import { inputsOfDocument, type ReputationInputsDocument } from "../api/src/domain/reputation-inputs.ts";
// The API's own content addressing (CIDv1, raw codec, sha2-256, base32): what /ipfs/<cid> must hash to.
import { cidOf } from "../api/src/stores/ipfs.ts";
import { REPLAYED_EVENTS, replayChainFacts, type TimedEvent } from "./lib/reputation-replay.ts";

/** Seconds of chain time after computedAt whose events the published chain facts may already include. */
const CLOCK_SLACK = 60n;

export interface AgentCheck {
  agentId: number;
  apiScore: number;
  recomputed: number;
  problems: string[];
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Every AgentIdentity and RunEscrow event the replay needs, in chain order, with its block's timestamp. */
async function chainEvents(rpc: string, identity: Address, escrow: Address, fromBlock: bigint): Promise<TimedEvent[]> {
  // Batched JSON-RPC: the block timestamps below go out together, not one round trip per block.
  const client = createPublicClient({ transport: http(rpc, { batch: true }) });
  const [idLogs, runLogs] = await Promise.all([
    client.getContractEvents({ address: identity, abi: AgentIdentityAbi, fromBlock }),
    client.getContractEvents({ address: escrow, abi: RunEscrowAbi, fromBlock }),
  ]);
  const logs = [...idLogs, ...runLogs]
    .filter((log) => REPLAYED_EVENTS.has(log.eventName))
    .sort((a, b) =>
      a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
    );
  const blocks = [...new Set(logs.map((log) => log.blockNumber))];
  const timestamps = await Promise.all(blocks.map((blockNumber) => client.getBlock({ blockNumber })));
  const times = new Map(blocks.map((block, i) => [block, timestamps[i]!.timestamp]));
  return logs.map(
    (log) => ({ ...log.args, kind: log.eventName, timestamp: times.get(log.blockNumber)! }) as unknown as TimedEvent,
  );
}

export async function recomputeReputation(opts: {
  api: string;
  rpc: string;
  fromBlock?: bigint;
  agentIds?: number[];
}): Promise<AgentCheck[]> {
  const config = await getJson<{ contracts: Record<string, Address> }>(`${opts.api}/api/config`);
  const events = await chainEvents(
    opts.rpc,
    config.contracts.AgentIdentity!,
    config.contracts.RunEscrow!,
    opts.fromBlock ?? 0n,
  );
  // One pass over the chain's events gives every agent's facts as of any time.
  const history = replayChainFacts(events);
  const ids = opts.agentIds ?? [...history.keys()].map(Number);
  const checks: AgentCheck[] = [];
  for (const agentId of ids) {
    const problems: string[] = [];
    const published = await getJson<{ cid: string; document: ReputationInputsDocument }>(
      `${opts.api}/api/reputation/${agentId}/inputs`,
    );
    const doc = published.document;
    // The document as stored under its content address: the bytes must hash to the CID and say the same.
    const stored = await fetch(`${opts.api}/ipfs/${published.cid}`, { signal: AbortSignal.timeout(30_000) });
    const bytes = new Uint8Array(await stored.arrayBuffer());
    if (!stored.ok) problems.push(`/ipfs/${published.cid} answered ${stored.status}`);
    else if ((await cidOf(bytes)) !== published.cid) {
      problems.push(`/ipfs/${published.cid} bytes hash to ${await cidOf(bytes)}`);
    } else if (!isDeepStrictEqual(JSON.parse(new TextDecoder().decode(bytes)), doc)) {
      problems.push("the stored document differs from the one served with the score");
    }
    // Chain facts as of the computation, from events alone. The API dates a computation by its chain clock (the
    // latest block, read at most half a second earlier) while the indexer may already show a block or two more, so
    // the published facts may include events up to CLOCK_SLACK seconds of chain time after computedAt.
    const asOf = BigInt(doc.computedAt);
    const snapshots = history.get(BigInt(agentId)) ?? [];
    const candidates = [
      snapshots.filter((f) => f.timestamp <= asOf).at(-1),
      ...snapshots.filter((f) => f.timestamp > asOf && f.timestamp <= asOf + CLOCK_SLACK),
    ]
      .filter((facts) => facts !== undefined)
      .map((facts) => ({
        registeredAt: facts.registeredAt.toString(),
        totalClaimed: facts.totalClaimed,
        completions: facts.completions,
        failures: facts.failures,
      }));
    if (candidates.length === 0) problems.push("no AgentRegistered event on chain");
    const chain = candidates.find((c) => isDeepStrictEqual(c, doc.chain)) ?? candidates[0];
    if (chain && !isDeepStrictEqual(chain, doc.chain)) {
      problems.push(`chain facts ${JSON.stringify(chain)} differ from the published ${JSON.stringify(doc.chain)}`);
    }
    const recomputed = computeScores(inputsOfDocument({ ...doc, chain: chain ?? doc.chain })).score;
    const { score: apiScore } = await getJson<{ score: number }>(`${opts.api}/api/reputation/${agentId}`);
    if (recomputed !== doc.score) problems.push(`the formula gives ${recomputed}, the document says ${doc.score}`);
    if (apiScore !== doc.score) problems.push(`the API serves ${apiScore}, the document says ${doc.score}`);
    checks.push({ agentId, apiScore, recomputed, problems });
  }
  return checks;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      api: { type: "string", default: process.env.AGENTHUB_API ?? "http://localhost:3000" },
      rpc: { type: "string", default: process.env.AGENTHUB_RPC ?? "http://127.0.0.1:8545" },
      "from-block": { type: "string", default: "0" },
    },
  });
  const checks = await recomputeReputation({
    api: values.api,
    rpc: values.rpc,
    fromBlock: BigInt(values["from-block"]),
    agentIds: positionals.length ? positionals.map(Number) : undefined,
  });
  for (const c of checks) {
    const verdict = c.problems.length ? `MISMATCH: ${c.problems.join("; ")}` : "matches";
    console.log(`agent ${c.agentId}: API ${c.apiScore}, recomputed ${c.recomputed} — ${verdict}`);
  }
  const bad = checks.filter((c) => c.problems.length).length;
  console.log(`${checks.length} agents checked, ${bad} mismatched`);
  process.exitCode = bad ? 1 : 0;
}
