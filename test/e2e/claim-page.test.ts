// The claimURL page in a real headless Chromium, with an EIP-1193 wallet injected into the page.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import type { Browser } from "playwright-core";
import { type Hex, hexToString, isHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { registerAgent } from "../support/agents.ts";
import { launchChromium } from "../support/browser.ts";
import { api, db, deployments, newWallet, publicClient, stack } from "../support/stack.ts";

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await db.end();
});

describe("claim page", () => {
  it("shows the agent, signs with the browser wallet, and shows the key once", async () => {
    const reg = await registerAgent({ name: "Browser Claim" });
    const user = newWallet();
    const page = await browser.newPage();
    await page.exposeFunction("__walletSign", async (message: string) =>
      user.account.signMessage({ message: isHex(message) ? hexToString(message as Hex) : message }),
    );
    // A string, not a function: tsx's transpiled functions reference helpers that do not exist in the page.
    await page.addInitScript(`
      window.ethereum = {
        isTestWallet: true,
        request: async ({ method, params }) => {
          if (method === "eth_requestAccounts" || method === "eth_accounts") return [${JSON.stringify(user.address)}];
          if (method === "personal_sign") return window.__walletSign(params[0]);
          throw new Error("unsupported " + method);
        },
      };`);

    await page.goto(reg.claimURL);
    await page.getByText(`Agent #${reg.agentId}`).waitFor();
    assert.ok((await page.textContent("#info"))?.includes(reg.walletAddress));
    await page.click("#claim");
    const key = (await page.locator("#private-key").textContent({ timeout: 30_000 })) as Hex;
    assert.equal(privateKeyToAccount(key).address, reg.walletAddress);
    assert.match((await page.textContent("#result")) ?? "", /shown only once/);
    const owner = await publicClient.readContract({
      address: deployments.contracts.AgentIdentity.address,
      abi: AgentIdentityAbi,
      functionName: "ownerOf",
      args: [BigInt(reg.agentId)],
    });
    assert.equal(owner, user.address);

    // Reloading the link no longer offers the claim.
    await page.reload();
    await page.getByText("cannot be used").waitFor();
    assert.equal(await page.isVisible("#claim"), false);
    await page.close();
  });

  it("a claim code carrying </script><script> runs nothing: invalid format, static page, hash-based CSP", async () => {
    const payloads = [
      "</script><script>window.__pwned=1</script>",
      'x"-alert(window.__pwned=2)-"',
      "<img src=x onerror=window.__pwned=3>",
    ];
    for (const payload of payloads) {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on("console", (m) => violations.push(m.text()));
      page.on("dialog", (d) => {
        violations.push(`dialog ${d.message()}`);
        void d.dismiss();
      });
      const res = await page.goto(`${stack.apiUrl}/claim/${encodeURIComponent(payload)}`);
      assert.equal(res?.status(), 404, payload);
      await page.getByText("not valid").waitFor();
      assert.equal(await page.evaluate("window.__pwned"), undefined, payload);
      assert.ok(!violations.some((v) => v.startsWith("dialog")), violations.join("\n"));
      await page.close();
    }
    // The header allows the page's own script and style by hash, nothing inline.
    const res = await api("GET", `/claim/${encodeURIComponent(payloads[0]!)}`);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.ok(!String(res.body).includes("__pwned"), "the code is not echoed into the page");
  });

  it("the same page for every valid code: the code never appears in the HTML", async () => {
    const reg = await registerAgent({ name: "Static Page" });
    const res = await api("GET", `/claim/${reg.claimCode}`);
    assert.equal(res.status, 200);
    assert.ok(!String(res.body).includes(reg.claimCode));
    const other = await api("GET", `/claim/${"A".repeat(32)}`);
    assert.equal(other.body, res.body);
  });
});
