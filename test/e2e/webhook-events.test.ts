// Every organization event of the spec's list (supplement §4), one test each, on the real stack: the action that
// causes it queues it exactly once (outbox rows counted right after the action answers, and again after a retry),
// it goes to the right organization only, and a local HTTP receiver gets it with a valid Standard Webhooks
// signature. "Once" is proven without sleeping: an event is counted in the outbox when the action has answered, and
// a delivery marked delivered is never sent again, so the receiver's count at that moment is final.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import { Webhook } from "standardwebhooks";
import type { Address } from "viem";
import { claimAgent, depositDirect, faucet, signedAction } from "../support/agents.ts";
import { claim, createDraft, escrowAddress, fundWithAuthorization, openRun, step } from "../support/runs.ts";
import { api, db, publicClient, stack, waitUntil } from "../support/stack.ts";
import { createSubscription } from "../support/subscriptions.ts";

const admin = { authorization: `Bearer ${stack.secrets.adminToken}` };
const uniq = () => Math.random().toString(36).slice(2, 10);

interface Event {
  id: string;
  event: string;
  organization: string;
  timestamp: string;
  data: Record<string, any>;
}

/** Receives deliveries and keeps only those whose Standard Webhooks signature verifies under the path's secret. */
class Receiver {
  private secrets = new Map<string, string>();
  verified = new Map<string, Event[]>();
  rejected = 0;
  url = "";
  private server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      const secret = this.secrets.get(path);
      try {
        if (!secret) throw new Error("unknown path");
        const event = new Webhook(secret).verify(
          Buffer.concat(chunks).toString("utf8"),
          req.headers as Record<string, string>,
        ) as Event;
        this.verified.set(path, [...(this.verified.get(path) ?? []), event]);
        res.writeHead(204).end();
      } catch {
        this.rejected++;
        res.writeHead(400).end();
      }
    });
  });
  async start() {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  expect(path: string, secret: string) {
    this.secrets.set(path, secret);
  }
  events(path: string, event?: string) {
    return (this.verified.get(path) ?? []).filter((e) => !event || e.event === event);
  }
  stop() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

const receiver = new Receiver();
before(() => receiver.start());
after(async () => {
  await receiver.stop();
  await db.end();
});

interface Org {
  id: string;
  apiKey: string;
  apiSecret: string;
  path: string;
}

/** An organization with one webhook (every event) pointing at its own receiver path. */
async function orgWithWebhook(label: string): Promise<Org> {
  const res = await api("POST", "/api/organizations", {
    headers: admin,
    body: { name: `${label} ${uniq()}`, subdomain: `${label.toLowerCase()}-${uniq()}` },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const o = { ...(res.body as Omit<Org, "path">), path: `/${label}-${uniq()}` };
  const hook = await api("POST", `/api/organizations/${o.id}/webhooks`, {
    headers: { "x-api-key": o.apiKey, "x-api-secret": o.apiSecret },
    body: {
      url: `${receiver.url}${o.path}`,
      events: [
        "agent.registered",
        "agent.updated",
        "bounty.created",
        "bounty.claimed",
        "bounty.completed",
        "reputation.updated",
        "verification.completed",
      ],
    },
  });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  receiver.expect(o.path, hook.body.secret);
  return o;
}

/** Outbox rows of `event` for `org` whose data matches `match` (JSON containment). */
async function queued(org: Org, event: string, match: Record<string, unknown>): Promise<Event[]> {
  const { rows } = await db.query<{ body: string }>(
    "select body from api.org_event where org_id = $1 and event = $2 and (body::jsonb -> 'data') @> $3::jsonb",
    [org.id, event, JSON.stringify(match)],
  );
  return rows.map((r) => JSON.parse(r.body) as Event);
}

/**
 * Waits until the receiver holds `event` (matching `match`) for `org` and its delivery is recorded as delivered,
 * then checks it arrived exactly once (a delivered delivery is never attempted again).
 */
async function deliveredOnce(org: Org, event: string, match: Record<string, unknown>): Promise<Event> {
  const matches = (e: Event) =>
    Object.entries(match).every(([k, v]) => JSON.stringify(e.data[k]) === JSON.stringify(v));
  const [got] = await waitUntil(
    `${event} at ${org.path}`,
    async () => {
      const found = receiver.events(org.path, event).filter(matches);
      if (found.length === 0) return undefined;
      const d = await db.query<{ status: string }>("select status from api.webhook_delivery where event_id = $1", [
        found[0]!.id,
      ]);
      return d.rows[0]?.status === "delivered" && found;
    },
    30_000,
  );
  assert.ok(got);
  assert.equal(receiver.events(org.path, event).filter(matches).length, 1, `${event} delivered more than once`);
  assert.equal(got.organization, org.id);
  assert.ok(!Number.isNaN(Date.parse(got.timestamp)));
  return got;
}

async function registerWithKey(org: Org, name: string, idempotencyKey?: string) {
  const res = await api("POST", "/api/agents/register", {
    headers: {
      authorization: `Bearer ${org.apiKey}`,
      ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
    },
    body: { name, capabilities: ["coding"] },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { agentId: number; claimCode: string; walletAddress: Address };
}

/** A claimed organization agent: its owner wallet and its own key. */
async function ownedAgent(org: Org, name: string) {
  const reg = await registerWithKey(org, name);
  const claimed = await claimAgent(reg.agentId, reg.claimCode);
  return { ...reg, owner: claimed.owner, agentKey: claimed.agentKey };
}

describe("organization events: agents", () => {
  let org: Org;
  before(async () => {
    org = await orgWithWebhook("Agents");
  });

  it("agent.registered: once per registration, also when the request is replayed", async () => {
    const key = `reg-${uniq()}`;
    const reg = await registerWithKey(org, "Registered Once", key);
    assert.equal((await queued(org, "agent.registered", { agentId: reg.agentId })).length, 1);
    const replay = await registerWithKey(org, "Registered Once", key);
    assert.equal(replay.agentId, reg.agentId);
    assert.equal((await queued(org, "agent.registered", { agentId: reg.agentId })).length, 1);
    const got = await deliveredOnce(org, "agent.registered", { agentId: reg.agentId });
    assert.deepEqual(got.data, { agentId: reg.agentId, name: "Registered Once", wallet: reg.walletAddress });
  });

  it("agent.updated: once per profile change, to the agent's organization only", async () => {
    const other = await orgWithWebhook("Bystander");
    const agent = await ownedAgent(org, "Before Rename");
    const signed = await signedAction(agent.owner.key, "update-profile", "agent", agent.agentId);
    const patched = await api("PATCH", `/api/agents/${agent.agentId}`, { body: { ...signed, name: "After Rename" } });
    assert.ok(patched.status === 200 || patched.status === 202, JSON.stringify(patched.body));
    assert.equal((await queued(org, "agent.updated", { agentId: agent.agentId })).length, 1);
    // The same signed request again: its nonce is spent, nothing changes, nothing is emitted.
    const replay = await api("PATCH", `/api/agents/${agent.agentId}`, { body: { ...signed, name: "After Rename" } });
    assert.equal(replay.status, 401, JSON.stringify(replay.body));
    assert.equal((await queued(org, "agent.updated", { agentId: agent.agentId })).length, 1);
    const got = await deliveredOnce(org, "agent.updated", { agentId: agent.agentId });
    assert.equal(got.data.name, "After Rename");
    assert.deepEqual(got.data.changed, ["name"]);
    assert.equal((await queued(other, "agent.updated", { agentId: agent.agentId })).length, 0);
  });

  /** A claimed agent of `org` whose stake (150 USDC) passed a stake verification: the verification's id. */
  async function verifiedAgent(name: string) {
    const agent = await ownedAgent(org, name);
    await faucet(agent.walletAddress, 150_000_000n, 10n ** 16n);
    await depositDirect(agent.agentKey, agent.agentId, 150_000_000n);
    const requested = await api("POST", "/api/verifications/stake", {
      body: { agentId: agent.agentId, minStakeAmount: "100000000" },
    });
    assert.equal(requested.status, 201, JSON.stringify(requested.body));
    const vid = requested.body.verification.id as number;
    const verified = await api("POST", `/api/verifications/${vid}/verify-stake`);
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    return { agent, vid };
  }

  it("verification.completed: once per badge, to the agent's organization only", async () => {
    const other = await orgWithWebhook("Onlooker");
    const { agent, vid } = await verifiedAgent("Verified");
    assert.equal((await queued(org, "verification.completed", { verificationId: vid })).length, 1);
    // Checking the same verification again grants no second badge and emits nothing.
    const again = await api("POST", `/api/verifications/${vid}/verify-stake`);
    assert.ok(again.status < 500, JSON.stringify(again.body));
    assert.equal((await queued(org, "verification.completed", { verificationId: vid })).length, 1);
    const got = await deliveredOnce(org, "verification.completed", { verificationId: vid });
    assert.equal(got.data.agentId, agent.agentId);
    assert.equal(got.data.type, "stake");
    assert.equal(got.data.status, "VERIFIED");
    assert.equal((await queued(other, "verification.completed", { verificationId: vid })).length, 0);
  });

  it("reputation.updated: once per score change, each carrying the score it replaced", async () => {
    const other = await orgWithWebhook("Spectator");
    const { agent } = await verifiedAgent("Scored");
    // The badge moves the score. The recompute job writes one history row and queues one event per change, in one
    // transaction: wait for the event carrying the current score, then match events to history rows one for one.
    const current = await waitUntil(
      "the badge in the score",
      async () => {
        const r = await db.query<{ score: number; badges: string[] }>(
          "select score, verification_badges badges from api.reputation where agent_id = $1",
          [agent.agentId],
        );
        return r.rows[0]?.badges.length ? Number(r.rows[0].score) : undefined;
      },
      30_000,
    );
    const rep = await deliveredOnce(org, "reputation.updated", { agentId: agent.agentId, score: current });
    assert.notEqual(rep.data.score, rep.data.previousScore);
    const history = await db.query<{ score: number }>(
      "select score from api.reputation_history where agent_id = $1 order by computed_at, id",
      [agent.agentId],
    );
    const events = await queued(org, "reputation.updated", { agentId: agent.agentId });
    assert.deepEqual(events.map((e) => e.data.score).sort(), history.rows.map((r) => Number(r.score)).sort());
    // In history order, each event's previousScore is the score before it (null for the first computation).
    const byScore = new Map(events.map((e) => [Number(e.data.score), e]));
    let previous: number | null = null;
    for (const row of history.rows) {
      const e = byScore.get(Number(row.score));
      assert.ok(e, `no event for the snapshot ${row.score}`);
      assert.equal(e.data.previousScore === null ? null : Number(e.data.previousScore), previous);
      previous = Number(row.score);
    }
    assert.equal((await queued(other, "reputation.updated", { agentId: agent.agentId })).length, 0);
  });
});

describe("organization events: bounties go to the organization whose agent posted the run", () => {
  let posterOrg: Org;
  let workerOrg: Org;
  let poster: Awaited<ReturnType<typeof ownedAgent>>;
  let worker: Awaited<ReturnType<typeof ownedAgent>>;
  let bountyId: number;
  let claimTx: string;

  before(async () => {
    posterOrg = await orgWithWebhook("Posters");
    workerOrg = await orgWithWebhook("Workers");
    poster = await ownedAgent(posterOrg, "Poster Agent");
    worker = await ownedAgent(workerOrg, "Worker Agent");
    await faucet(poster.owner.address, 100_000_000n);
    await faucet(worker.walletAddress, 20_000_000n, 10n ** 17n);
    const stakeTx = await depositDirect(worker.agentKey, worker.agentId, 20_000_000n);
    const staked = await api("POST", `/api/agents/${worker.agentId}/stake`, {
      body: { amount: "20000000", txHash: stakeTx, walletAddress: worker.walletAddress },
    });
    assert.equal(staked.status, 200, JSON.stringify(staked.body));
  });

  it("bounty.created: to the poster's organization, once, when the run is funded", async () => {
    const draft = await createDraft(poster.owner.key, poster.owner.address, {
      reward: 12_000_000n,
      title: "Org bounty",
    });
    assert.equal(draft.status, 201, JSON.stringify(draft.body));
    bountyId = draft.body.run.bountyId;
    assert.equal((await queued(posterOrg, "bounty.created", { bountyId })).length, 0, "a draft is not a bounty yet");
    const funded = await fundWithAuthorization(poster.owner.key, draft.body.run);
    assert.equal(funded.status, 200, JSON.stringify(funded.body));
    assert.equal((await queued(posterOrg, "bounty.created", { bountyId })).length, 1);
    // Funding again is refused and emits nothing.
    const again = await fundWithAuthorization(poster.owner.key, draft.body.run);
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal((await queued(posterOrg, "bounty.created", { bountyId })).length, 1);

    const got = await deliveredOnce(posterOrg, "bounty.created", { bountyId });
    assert.deepEqual(got.data, {
      bountyId,
      agentId: poster.agentId,
      poster: poster.owner.address,
      title: "Org bounty",
      reward: "12000000",
      deadline: got.data.deadline,
      txHash: funded.body.txHash,
    });
    assert.ok(!Number.isNaN(Date.parse(got.data.deadline)));
    assert.equal((await queued(workerOrg, "bounty.created", { bountyId })).length, 0);
  });

  it("bounty.claimed: to the claiming agent's organization, once", async () => {
    const claimed = await claim(worker.owner.key, worker.owner.address, bountyId, worker.agentId);
    assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
    claimTx = claimed.body.txHash;
    assert.equal((await queued(workerOrg, "bounty.claimed", { bountyId })).length, 1);
    const again = await claim(worker.owner.key, worker.owner.address, bountyId, worker.agentId);
    assert.equal(again.status, 400, JSON.stringify(again.body));
    assert.equal((await queued(workerOrg, "bounty.claimed", { bountyId })).length, 1);
    const got = await deliveredOnce(workerOrg, "bounty.claimed", { bountyId });
    assert.deepEqual(got.data, { bountyId, agentId: worker.agentId, reward: "12000000", txHash: claimTx });
    assert.equal((await queued(posterOrg, "bounty.claimed", { bountyId })).length, 0);
  });

  it("bounty.completed: to the poster's organization (not the worker's), once, when the poster approves", async () => {
    // The worker's wallet signs the requests, its owner the on-chain consents.
    const asOwner = { consentKey: worker.owner.key };
    assert.equal((await step(worker.agentKey, bountyId, "start", "start-run", {}, asOwner)).status, 200);
    const submitted = await step(
      worker.agentKey,
      bountyId,
      "submit",
      "submit-run",
      { deliverable: { sum: "a+b" } },
      asOwner,
    );
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    assert.equal((await queued(posterOrg, "bounty.completed", { bountyId })).length, 0);
    const approved = await step(poster.owner.key, bountyId, "approve", "approve-run");
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal((await queued(posterOrg, "bounty.completed", { bountyId })).length, 1);
    const again = await step(poster.owner.key, bountyId, "approve", "approve-run");
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal((await queued(posterOrg, "bounty.completed", { bountyId })).length, 1);

    const got = await deliveredOnce(posterOrg, "bounty.completed", { bountyId });
    assert.deepEqual(got.data, {
      bountyId,
      agentId: worker.agentId,
      posterAgentId: poster.agentId,
      reward: "12000000",
      txHash: approved.body.txHash,
    });
    assert.equal((await queued(workerOrg, "bounty.completed", { bountyId })).length, 0);
    assert.equal(receiver.rejected, 0, "every delivery carried a valid Standard Webhooks signature");
  });

  it("bounty.claimed and bounty.completed also for a claim and an approval sent on chain directly, once each", async () => {
    const run = await openRun(poster.owner, { reward: 9_000_000n, title: "Direct bounty" });
    const id = run.bountyId;
    const onchainId = BigInt(run.onchainRunId!);
    await faucet(worker.owner.address, 0n, 10n ** 17n);
    await faucet(poster.owner.address, 0n, 10n ** 17n);
    const send = async (from: typeof worker.owner, functionName: "claim" | "submit" | "approve", args: unknown[]) => {
      const hash = await from.wallet.writeContract({
        address: escrowAddress,
        abi: RunEscrowAbi,
        functionName,
        args: args as never,
        chain: from.wallet.chain,
        account: from.account,
      });
      assert.equal((await publicClient.waitForTransactionReceipt({ hash })).status, "success");
      return hash;
    };
    // The worker's owner (the token holder) and the poster act on the escrow themselves: no API route is involved.
    const claimTx = await send(worker.owner, "claim", [onchainId, BigInt(worker.agentId)]);
    await send(worker.owner, "submit", [onchainId, `0x${"ab".repeat(32)}`]);
    const approveTx = await send(poster.owner, "approve", [onchainId]);

    const claimed = await deliveredOnce(workerOrg, "bounty.claimed", { bountyId: id });
    assert.deepEqual(claimed.data, { bountyId: id, agentId: worker.agentId, reward: "9000000", txHash: claimTx });
    const completed = await deliveredOnce(posterOrg, "bounty.completed", { bountyId: id });
    assert.deepEqual(completed.data, {
      bountyId: id,
      agentId: worker.agentId,
      posterAgentId: poster.agentId,
      reward: "9000000",
      txHash: approveTx,
    });
    assert.equal((await queued(workerOrg, "bounty.claimed", { bountyId: id })).length, 1);
    assert.equal((await queued(posterOrg, "bounty.completed", { bountyId: id })).length, 1);
    assert.equal((await queued(workerOrg, "bounty.completed", { bountyId: id })).length, 0);
    assert.equal((await queued(posterOrg, "bounty.claimed", { bountyId: id })).length, 0);
  });

  it("bounty.created: a subscription's run, created by the scheduler, once", async () => {
    // The subscriber is the poster organization agent's owner; the first run is due at once.
    await faucet(poster.owner.address, 10_000_000n, 10n ** 17n);
    const created = await createSubscription(
      poster.owner.key,
      "Summarize org news daily for 2 days",
      2n * (1_000_000n + 50_000n),
      1_000_000n,
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const subscriptionId = created.body.subscription.id as number;
    const run = await waitUntil(
      "the subscription's first run on chain",
      async () =>
        (
          await db.query<{ run_id: string }>(
            "select run_id::text from api.subscription_run where subscription_id = $1 and status = 'CREATED' order by slot limit 1",
            [subscriptionId],
          )
        ).rows[0],
      30_000,
    );
    const runId = Number(run.run_id);
    assert.equal((await queued(posterOrg, "bounty.created", { bountyId: runId })).length, 1);
    const got = await deliveredOnce(posterOrg, "bounty.created", { bountyId: runId });
    assert.equal(got.data.agentId, poster.agentId);
    assert.equal(got.data.poster, poster.owner.address);
    assert.equal(got.data.reward, "1000000");
    const fundingTx = await db.query<{ funding_tx: string }>("select funding_tx from api.run where id = $1", [runId]);
    assert.equal(got.data.txHash.toLowerCase(), fundingTx.rows[0]!.funding_tx);
    assert.equal((await queued(workerOrg, "bounty.created", { bountyId: runId })).length, 0);
  });
});
