// The newcomer's path in the web app, in a real headless Chromium against the real stack, with two injected
// wallets (an agent owner and a poster, no ETH): register and claim an agent, stake it, post and fund a run, take it
// with the agent from its console, submit, approve. USDC is checked on chain to the base unit where it moves
// (stake, funding with the 5% fee, payout); every new page is axe-checked, keyboard reachable and fits a phone.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { faucet, usdcOf } from "../support/agents.ts";
import { assertAccessible } from "../support/axe.ts";
import { escrowAddress, feesAccrued, rewardsPaidOut } from "../support/runs.ts";
import { api, deployments, publicClient, waitUntil } from "../support/stack.ts";
import {
  assertFitsPhone,
  browserForFile,
  confirmSigned,
  connect,
  pageProblems,
  person,
  signatures,
  tabTo,
} from "../support/web.ts";

const browser = browserForFile();

const OWNER_USDC = 50_000_000n;
const POSTER_USDC = 100_000_000n;
const REWARD = 12_340_000n; // 12.34 USDC

describe("web app: the newcomer's path", () => {
  it("registers and claims an agent, stakes it, posts and funds a run, takes it in the console, approves it", async () => {
    const config = (await api("GET", "/api/config")).body;
    const minStake = BigInt(config.minimumStake);
    const fee = (REWARD * BigInt(config.platformFeeBps)) / 10_000n;
    assert.equal(config.platformFeeBps, 500);
    const owner = await person(browser(), "Owner Wallet");
    const poster = await person(browser(), "Poster Wallet");
    await Promise.all([faucet(owner.wallet.address, OWNER_USDC), faucet(poster.wallet.address, POSTER_USDC)]);
    const name = `Newcomer ${Date.now()}`;

    // 1. Register: no wallet, nothing to sign; the claim code is shown once.
    const o = owner.page;
    await o.goto("/");
    await o.getByRole("link", { name: "Register an agent" }).click();
    await o.getByRole("heading", { level: 1, name: "Register an agent" }).waitFor();
    await assertAccessible(o, "register");
    await o.getByLabel("Name").fill(name);
    await o.getByLabel("Capabilities (comma separated, e.g. coding, research)").fill("writing, testing");
    await o.getByRole("button", { name: "Register" }).click();
    const registered = o.getByRole("heading", { level: 1, name: /^Agent #\d+ is registered$/ });
    await registered.waitFor({ timeout: 60_000 });
    const agentId = Number(/#(\d+)/.exec((await registered.textContent()) ?? "")![1]);
    await assertAccessible(o, "registered");
    assert.deepEqual(signatures(owner.wallet.requests), []);

    // 2. Claim, in the app's claim page (the claimURL path): one explained EIP-191 signature; the key shown once.
    await o.getByRole("link", { name: `Claim agent #${agentId} now` }).click();
    await o.getByRole("heading", { level: 2, name: `Agent #${agentId}` }).waitFor();
    assert.match(new URL(o.url()).pathname, /^\/claim\/[A-Za-z0-9_-]{32}$/);
    await assertAccessible(o, "claim page");
    await connect(o, owner.wallet);
    const claimText = await confirmSigned(
      o,
      o.getByRole("button", { name: `Claim agent #${agentId}` }),
      `Claim agent #${agentId}`,
      owner.wallet,
      { axe: "claim signature request" },
    );
    assert.match(claimText, new RegExp(`I claim agent ${agentId} to address ${owner.wallet.address}`));
    assert.match(claimText, /free/);
    await o.getByRole("heading", { level: 1, name: `Agent #${agentId} is yours` }).waitFor({ timeout: 60_000 });
    const key = ((await o.locator("#private-key").textContent()) ?? "").trim() as Hex;
    const agent = (await api("GET", `/api/agents/${agentId}`)).body;
    assert.equal(privateKeyToAccount(key).address.toLowerCase(), agent.walletAddress.toLowerCase());
    const tokenOwner = await publicClient.readContract({
      address: deployments.contracts.AgentIdentity.address,
      abi: AgentIdentityAbi,
      functionName: "ownerOf",
      args: [BigInt(agentId)],
    });
    assert.equal(tokenOwner, owner.wallet.address);
    assert.deepEqual(signatures(owner.wallet.requests), ["personal_sign"]);
    await assertAccessible(o, "claimed");

    // 3. Stake from the console: one EIP-2612 permit, relayed (no transaction from the wallet).
    await o.getByRole("link", { name: `open agent #${agentId}'s console` }).click();
    await o.getByRole("heading", { level: 1, name: `Console: ${name}` }).waitFor();
    await assertAccessible(o, "console");
    await assertFitsPhone(o, "console");
    const vault = deployments.contracts.StakeVault.address;
    const [ownerBefore, vaultBefore] = await Promise.all([usdcOf(owner.wallet.address), usdcOf(vault)]);
    assert.equal(ownerBefore, OWNER_USDC);
    const stakeField = o.getByLabel("Amount to stake (USDC)");
    await tabTo(o, stakeField);
    await o.keyboard.type((Number(minStake) / 1e6).toString());
    const signedBeforeStake = owner.wallet.requests.length;
    const stakeText = await confirmSigned(
      o,
      o.getByRole("button", { name: "Stake", exact: true }),
      /^Stake .* on agent/,
      owner.wallet,
      { axe: "stake signature request" },
    );
    assert.match(stakeText, new RegExp(`EIP-2612.*${minStake} base units`));
    await o.getByText("Staked: the agent now holds").waitFor({ timeout: 60_000 });
    assert.deepEqual(signatures(owner.wallet.requests.slice(signedBeforeStake)), ["eth_signTypedData_v4"]);
    assert.equal(await usdcOf(owner.wallet.address), ownerBefore - minStake);
    assert.equal(await usdcOf(vault), vaultBefore + minStake);
    await o.getByText("Can take runs").waitFor();

    // 4. The poster drafts and funds a run: one EIP-3009 authorization (plus the request's own message), no ETH.
    const p = poster.page;
    await p.goto("/");
    await p.getByRole("link", { name: "Post a run" }).click();
    await p.getByRole("heading", { level: 1, name: "Post a run" }).waitFor();
    await connect(p, poster.wallet);
    await assertAccessible(p, "post");
    await assertFitsPhone(p, "post");
    const title = `Newcomer run ${Date.now()}`;
    await p.getByLabel("Title").fill(title);
    await p.getByLabel("What to do").fill("Write a haiku about escrow.");
    await p.getByLabel("Reward (USDC)").fill("12.34");
    await p.getByText(`You will fund ${Number(REWARD + fee) / 1e6} USDC`).waitFor();
    await confirmSigned(p, p.getByRole("button", { name: "Create the draft" }), "Create the draft", poster.wallet);
    const runHeading = p.getByRole("heading", { level: 1, name: new RegExp(`^Run #\\d+: ${title}$`) });
    await runHeading.waitFor({ timeout: 60_000 });
    const runId = Number(/#(\d+)/.exec((await runHeading.textContent()) ?? "")![1]);
    await assertAccessible(p, "draft");
    const [posterBefore, escrowBefore] = await Promise.all([usdcOf(poster.wallet.address), usdcOf(escrowAddress)]);
    assert.equal(posterBefore, POSTER_USDC);
    const signedBeforeFunding = poster.wallet.requests.length;
    const fundText = await confirmSigned(
      p,
      p.getByRole("button", { name: `Fund run #${runId}` }),
      new RegExp(`^Fund run #${runId}`),
      poster.wallet,
      { axe: "funding signature request" },
    );
    assert.match(fundText, new RegExp(`EIP-3009\\) of .*\\(${REWARD + fee} base units`));
    await p.getByRole("link", { name: "Follow it on its page" }).waitFor({ timeout: 60_000 });
    const fundingSignatures = signatures(poster.wallet.requests.slice(signedBeforeFunding));
    assert.equal(fundingSignatures.filter((m) => m === "eth_signTypedData_v4").length, 1);
    assert.ok(!fundingSignatures.includes("eth_sendTransaction"), "no transaction from the poster's wallet");
    assert.equal(await usdcOf(poster.wallet.address), posterBefore - REWARD - fee);
    assert.equal(await usdcOf(escrowAddress), escrowBefore + REWARD + fee);

    // 5. The owner takes the run in the console: claim, start, submit a text.
    await o.reload();
    await connect(o, owner.wallet);
    const openCard = o.locator("section", { has: o.getByRole("heading", { name: "Open runs to take" }) });
    await confirmSigned(
      o,
      openCard.getByRole("button", { name: `Claim run #${runId}` }),
      `Claim run #${runId} for agent #${agentId}`,
      owner.wallet,
      { axe: "claim-run signature request" },
    );
    const mine = o.locator("section", { has: o.getByRole("heading", { name: "This agent's runs" }) });
    const start = mine.getByRole("button", { name: `Start run #${runId}` });
    await start.waitFor({ timeout: 60_000 });
    await confirmSigned(o, start, `Start run #${runId}`, owner.wallet);
    await mine
      .getByLabel("The work (text)")
      .fill("Funds wait in escrow / the work is done, approved / the agent is paid");
    await confirmSigned(
      o,
      mine.getByRole("button", { name: `Submit work for run #${runId}` }),
      `Submit the work for run #${runId}`,
      owner.wallet,
    );
    await mine.getByText("Submitted: waiting for the poster to review.").waitFor({ timeout: 60_000 });
    await assertAccessible(o, "console with a submitted run");

    // 6. The poster approves on the run page: the reward reaches the owner, the fee stays with the escrow.
    await p.getByRole("link", { name: "Follow it on its page" }).click();
    await p.getByRole("heading", { level: 1, name: title }).waitFor();
    const approve = p.getByRole("button", { name: "Approve and pay" });
    await approve.waitFor({ timeout: 30_000 });
    await assertAccessible(p, "run page with the poster's actions");
    const [ownerBeforePayout, feesBefore] = await Promise.all([usdcOf(owner.wallet.address), feesAccrued()]);
    const approveText = await confirmSigned(p, approve, `Approve run #${runId}`, poster.wallet);
    assert.match(approveText, new RegExp(`${Number(REWARD) / 1e6} USDC reward`));
    await p.locator(".badge", { hasText: "approved" }).waitFor({ timeout: 60_000 });
    await rewardsPaidOut(agentId);
    assert.equal(await usdcOf(owner.wallet.address), ownerBeforePayout + REWARD);
    assert.equal(await feesAccrued(), feesBefore + fee);
    assert.equal(fee, 617_000n);

    // The console shows the payout.
    await mine
      .getByText(`Approved: ${Number(REWARD) / 1e6} USDC paid to the agent's owner`)
      .waitFor({ timeout: 30_000 });
    await waitUntil("the agent's run list shows it approved", async () => {
      const list = (await api("GET", `/api/runs?agentId=${agentId}`)).body;
      return list.runs.length === 1 && list.runs[0].bountyId === runId && list.runs[0].state === "APPROVED";
    });
    const postedBy = (await api("GET", `/api/runs?poster=${poster.wallet.address.toLowerCase()}`)).body;
    assert.deepEqual(
      postedBy.runs.map((r: { bountyId: number }) => r.bountyId),
      [runId],
    );
  });

  it("no page reported a script error or a CSP refusal", () => {
    assert.deepEqual(pageProblems, []);
  });
});
