// Relayed profile writes are bounded: rapid updates coalesce into one setTokenURI per window (3 s in the test
// stack), and daily quotas per agent and per owner answer 429 RELAY_QUOTA_EXCEEDED before anything is saved.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import { claimAgent, registerAgent, signedAction } from "../support/agents.ts";
import { api, db, deployments, publicClient, waitUntil } from "../support/stack.ts";

after(() => db.end());

const identity = deployments.contracts.AgentIdentity.address;
/** The agent's ProfileUpdated events on chain, oldest first (each is one relayed setTokenURI). */
const profileUpdates = async (agentId: number) =>
  publicClient.getContractEvents({
    address: identity,
    abi: AgentIdentityAbi,
    eventName: "ProfileUpdated",
    args: { agentId: BigInt(agentId) },
    fromBlock: 0n,
  });
const profileWrites = async (agentId: number) => (await profileUpdates(agentId)).length;
const tokenUri = async (agentId: number) => (await profileUpdates(agentId)).at(-1)?.args.newMetadataUri;

async function patch(key: `0x${string}`, agentId: number, changes: Record<string, unknown>) {
  const signed = await signedAction(key, "update-profile", "agent", agentId);
  return api("PATCH", `/api/agents/${agentId}`, { body: { ...signed, ...changes } });
}

describe("relayed profile writes", () => {
  it("coalesces rapid updates into one transaction per window, the latest profile winning", async () => {
    const reg = await registerAgent({ name: "Coalesce 0" });
    const { owner } = await claimAgent(reg.agentId, reg.claimCode);
    const before = await profileWrites(reg.agentId);
    const first = await patch(owner.key, reg.agentId, { name: "Coalesce 1" });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(await tokenUri(reg.agentId), first.body.ipfsHash);
    // Two more within the window: saved and served at once, not sent.
    for (const name of ["Coalesce 2", "Coalesce 3"]) {
      const res = await patch(owner.key, reg.agentId, { name });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.equal(res.headers.get("x-profile-publish"), "coalesced");
      assert.equal(res.body.name, name);
    }
    assert.equal((await api("GET", `/api/agents/${reg.agentId}`)).body.name, "Coalesce 3");
    // The job publishes the latest profile once the window ends: one more transaction for both updates.
    const cid = (await db.query("select metadata_cid from api.agent_profile where agent_id = $1", [reg.agentId]))
      .rows[0].metadata_cid as string;
    await waitUntil(
      "coalesced profile on chain",
      async () => (await tokenUri(reg.agentId)) === `ipfs://${cid}`,
      30_000,
    );
    assert.equal((await profileWrites(reg.agentId)) - before, 2, "three updates, two transactions");
    await waitUntil(
      "indexed",
      async () => (await api("GET", `/api/agents/${reg.agentId}`)).body.ipfsHash === `ipfs://${cid}`,
    );
  });

  it("answers 429 RELAY_QUOTA_EXCEEDED past the agent's or the owner's daily quota, saving nothing", async () => {
    const reg = await registerAgent({ name: "Quota 0" });
    const { owner } = await claimAgent(reg.agentId, reg.claimCode);
    const day = 86_400;
    const windowStart = Math.floor(Date.now() / 1000 / day) * day;
    const fill = (key: string, count: number) =>
      db.query(
        `insert into api.rate_limit (key, window_start, count) values ($1, to_timestamp($2), $3)
         on conflict (key, window_start) do update set count = $3`,
        [`${key}:${day}`, windowStart, count],
      );
    // The agent's quota (24 a day by default) used up.
    await fill(`relay-profile:agent:${reg.agentId}`, 24);
    const over = await patch(owner.key, reg.agentId, { name: "Quota 1" });
    assert.equal(over.status, 429, JSON.stringify(over.body));
    assert.equal(over.body.error.code, "RELAY_QUOTA_EXCEEDED");
    assert.equal((await api("GET", `/api/agents/${reg.agentId}`)).body.name, "Quota 0");
    await fill(`relay-profile:agent:${reg.agentId}`, 0);
    // The owner's quota (100 a day over all its agents) used up.
    await fill(`relay-profile:owner:${owner.address.toLowerCase()}`, 100);
    const ownerOver = await patch(owner.key, reg.agentId, { name: "Quota 2" });
    assert.equal(ownerOver.status, 429, JSON.stringify(ownerOver.body));
    assert.equal(ownerOver.body.error.code, "RELAY_QUOTA_EXCEEDED");
    await fill(`relay-profile:owner:${owner.address.toLowerCase()}`, 0);
    const ok = await patch(owner.key, reg.agentId, { name: "Quota 3" });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });
});
