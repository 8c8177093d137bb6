// A poster's review in the web app, in a real headless Chromium against the real stack: on the run page the poster
// asks for a revision (the agent's console shows the feedback), rejects once the revisions are used (reward and fee
// back to the base unit), and disputes another submission. The agent's side goes through the API helpers.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { faucet, stakedAgent, usdcOf } from "../support/agents.ts";
import { assertAccessible } from "../support/axe.ts";
import { claim, escrowAddress, openRun, step } from "../support/runs.ts";
import { api, waitUntil } from "../support/stack.ts";
import { assertFitsPhone, browserForFile, confirmSigned, connect, pageProblems, person } from "../support/web.ts";

const browser = browserForFile();

/** A run of `poster` claimed, started and submitted by a fresh staked agent. */
async function submittedRun(poster: { key: `0x${string}`; address: `0x${string}` }, maxRevisions: number) {
  const agent = await stakedAgent();
  const run = await openRun(poster, { title: `Review ${Date.now()}`, maxRevisions });
  const claimed = await claim(agent.owner.key, agent.owner.address, run.bountyId, agent.agentId);
  assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
  assert.equal((await step(agent.owner.key, run.bountyId, "start", "start-run")).status, 200);
  const submitted = await step(agent.owner.key, run.bountyId, "submit", "submit-run", { deliverable: "first try" });
  assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
  return { agent, run };
}

describe("web app: the poster's review", () => {
  it("asks for a revision (the console shows it), then rejects: reward and fee refunded to the base unit", async () => {
    const poster = await person(browser(), "Reviewing Poster");
    await faucet(poster.wallet.address, 100_000_000n);
    const { agent, run } = await submittedRun(poster.wallet.wallet, 1);
    const p = poster.page;
    await p.goto(`/runs/${run.bountyId}`);
    await connect(p, poster.wallet);
    await p.getByRole("heading", { name: "Your run" }).waitFor();
    await assertAccessible(p, "run page, submitted");
    await assertFitsPhone(p, "run page, submitted");
    const feedback = "Please add a test for negative numbers.";
    await p.getByLabel("Feedback or reason").fill(feedback);
    await confirmSigned(
      p,
      p.getByRole("button", { name: "Ask for a revision" }),
      `Ask for a revision of run #${run.bountyId}`,
      poster.wallet,
      { axe: "revision signature request" },
    );
    await p.locator(".badge", { hasText: "revision requested" }).waitFor({ timeout: 60_000 });

    // The agent's console (its owner's browser) shows the feedback with the form to resubmit.
    const owner = await person(browser(), "Agent Owner");
    await owner.page.goto(`/console/${agent.agentId}`);
    const mine = owner.page.locator("section", { has: owner.page.getByRole("heading", { name: "This agent's runs" }) });
    await mine.getByLabel("The poster's feedback").getByText(feedback).waitFor({ timeout: 30_000 });
    await assertAccessible(owner.page, "console with a revision request");
    const again = await step(agent.owner.key, run.bountyId, "submit", "submit-run", { deliverable: "second try" });
    assert.equal(again.status, 200, JSON.stringify(again.body));

    // Every revision used: the poster can reject, and gets reward and fee back.
    await p.getByRole("button", { name: "Reject" }).waitFor({ timeout: 30_000 });
    assert.equal(await p.getByRole("button", { name: "Ask for a revision" }).count(), 0);
    const [posterBefore, escrowBefore] = await Promise.all([usdcOf(poster.wallet.address), usdcOf(escrowAddress)]);
    const refund = BigInt(run.reward) + BigInt(run.fee);
    await p.getByLabel("Feedback or reason").fill("Still no test for negative numbers.");
    const text = await confirmSigned(
      p,
      p.getByRole("button", { name: "Reject" }),
      `Reject run #${run.bountyId}`,
      poster.wallet,
    );
    assert.match(text, /refunds/);
    await p.locator(".badge", { hasText: "rejected" }).waitFor({ timeout: 60_000 });
    assert.equal(await usdcOf(poster.wallet.address), posterBefore + refund);
    assert.equal(await usdcOf(escrowAddress), escrowBefore - refund);
  });

  it("disputes a submission; the run waits for the arbiter", async () => {
    const poster = await person(browser(), "Disputing Poster");
    await faucet(poster.wallet.address, 100_000_000n);
    const { run } = await submittedRun(poster.wallet.wallet, 0);
    const p = poster.page;
    await p.goto(`/runs/${run.bountyId}`);
    await connect(p, poster.wallet);
    await p.getByLabel("Feedback or reason").fill("The deliverable is empty.");
    await confirmSigned(p, p.getByRole("button", { name: "Dispute" }), `Dispute run #${run.bountyId}`, poster.wallet);
    await p.locator(".badge", { hasText: "disputed" }).waitFor({ timeout: 60_000 });
    assert.equal((await api("GET", `/api/runs/${run.bountyId}`)).body.state, "DISPUTED");
    await p.getByText("The deliverable is empty.").first().waitFor();
  });

  it("subscriptions: previews the cadence, creates, pauses, resumes, tops up and cancels with the refund shown", async () => {
    const poster = await person(browser(), "Subscribing Poster");
    await faucet(poster.wallet.address, 100_000_000n);
    const p = poster.page;
    await p.goto("/");
    await p.getByRole("link", { name: "Subscriptions" }).click();
    await p.getByRole("heading", { level: 1, name: "Subscriptions" }).waitFor();
    await connect(p, poster.wallet);
    await p.getByLabel("Instructions (what, how often, for how long)").fill("Summarize AI news daily for 3 days");
    await p.getByLabel("Reward per run (USDC)").fill("1");
    await p.getByRole("button", { name: "Preview the cadence" }).click();
    const preview = (
      await api(
        "GET",
        `/api/subscriptions/parse-cadence?instructions=${encodeURIComponent("Summarize AI news daily for 3 days")}&rewardPerRun=1000000`,
      )
    ).body;
    const prepaid = BigInt(preview.costs.total);
    assert.equal(prepaid, 3_150_000n); // 3 runs of 1 USDC + 5% fee
    await p.getByText(preview.detected.cadence, { exact: true }).first().waitFor();
    await assertAccessible(p, "subscription preview");
    await assertFitsPhone(p, "subscriptions");
    const before = await usdcOf(poster.wallet.address);
    const text = await confirmSigned(
      p,
      p.getByRole("button", { name: "Create the subscription" }),
      /^Subscribe:/,
      poster.wallet,
      { axe: "subscribe signature request" },
    );
    assert.match(text, new RegExp(`${prepaid} base units`));
    await p.getByText("Subscribed: it is listed below.").waitFor({ timeout: 60_000 });
    assert.equal(await usdcOf(poster.wallet.address), before - prepaid);
    const list = (await api("GET", `/api/subscriptions?posterAddress=${poster.wallet.address}`)).body.subscriptions;
    assert.equal(list.length, 1);
    const id = list[0].id as number;
    const card = p.locator("li", { has: p.getByRole("heading", { name: new RegExp(`^#${id}:`) }) });
    await card.waitFor({ timeout: 30_000 });

    await confirmSigned(
      p,
      card.getByRole("button", { name: `Pause #${id}` }),
      `Pause subscription #${id}`,
      poster.wallet,
    );
    await card.locator(".badge", { hasText: "paused" }).waitFor({ timeout: 60_000 });
    await confirmSigned(
      p,
      card.getByRole("button", { name: `Resume #${id}` }),
      `Resume subscription #${id}`,
      poster.wallet,
    );
    await card.locator(".badge", { hasText: /active|exhausted/ }).waitFor({ timeout: 60_000 });
    await card.getByLabel(`Top up #${id} (USDC)`).fill("2");
    const beforeTopUp = await usdcOf(poster.wallet.address);
    await confirmSigned(
      p,
      card.getByRole("button", { name: `Top up #${id}` }),
      `Top up subscription #${id}`,
      poster.wallet,
    );
    await waitUntil("top-up moved", async () => (await usdcOf(poster.wallet.address)) === beforeTopUp - 2_000_000n);

    const beforeCancel = await usdcOf(poster.wallet.address);
    await confirmSigned(
      p,
      card.getByRole("button", { name: `Cancel #${id}` }),
      `Cancel subscription #${id}`,
      poster.wallet,
    );
    const shown = card.getByText(/^Cancelled: .* refunded to your wallet\.$/);
    await shown.waitFor({ timeout: 60_000 });
    const cancelled = (await api("GET", `/api/subscriptions/${id}`)).body;
    assert.equal(cancelled.status, "CANCELLED");
    const refunded = BigInt(cancelled.refunded);
    assert.ok(refunded > 0n);
    assert.equal(await usdcOf(poster.wallet.address), beforeCancel + refunded);
    assert.equal((await shown.textContent())?.includes(`${Number(refunded) / 1e6} USDC`), true);
  });

  it("no page reported a script error or a CSP refusal", () => {
    assert.deepEqual(pageProblems, []);
  });
});
