// Shared state lives in Postgres, so limits and exactly-once rules hold across API processes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { registerAgent } from "../support/agents.ts";
import { startExtraApi } from "../support/processes.ts";
import { db, freshIp, newWallet, stack } from "../support/stack.ts";

let second: Awaited<ReturnType<typeof startExtraApi>>;
before(async () => {
  second = await startExtraApi();
});
after(async () => {
  await second?.stop();
  await db.end();
});

const post = (base: string, path: string, body: unknown, ip: string) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": ip },
    body: JSON.stringify(body),
  });

describe("two API processes, one database", () => {
  it("share the registration limit of 3 per IP", async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    for (const [i, base] of [stack.apiUrl, second.url, stack.apiUrl, second.url].entries()) {
      statuses.push((await post(base, "/api/agents/register", { name: `shared-limit-${i}` }, ip)).status);
    }
    assert.deepEqual(statuses, [201, 201, 201, 429]);
  });

  it("release a claimed key exactly once across processes", async () => {
    const reg = await registerAgent();
    const user = newWallet();
    const signature = await user.account.signMessage({
      message: `I claim agent ${reg.agentId} to address ${user.address}`,
    });
    const body = { signature, userAddress: user.address, claimCode: reg.claimCode };
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(i % 2 ? second.url : stack.apiUrl, `/api/agents/${reg.agentId}/claim`, body, freshIp()),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 200).length, 1);
    assert.equal(statuses.filter((s) => s === 400).length, 9);
  });
});
