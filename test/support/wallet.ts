// A browser wallet for tests: an EIP-1193 provider injected into every page of a Playwright context, announcing
// itself by EIP-6963 (and as window.ethereum), backed by a viem local account in Node. Signatures are real; anything
// that is not an account or signing method goes to the chain as JSON-RPC. One context = one wallet; a test that needs
// two people (poster and agent owner) opens two contexts.
import { randomUUID } from "node:crypto";
import type { BrowserContext } from "playwright-core";
import { type Hex, numberToHex, type TypedDataDefinition } from "viem";
import { chain, newWallet, publicClient } from "./stack.ts";

export interface TestWallet {
  address: `0x${string}`;
  name: string;
  /** Every method the page asked for, in order (a test checks what was requested, e.g. that nothing was signed). */
  requests: string[];
  wallet: ReturnType<typeof newWallet>;
}

/** Answers the page's EIP-1193 requests with the local account; everything else is forwarded to the chain. */
async function answer(w: ReturnType<typeof newWallet>, method: string, params: unknown[]): Promise<unknown> {
  switch (method) {
    case "eth_requestAccounts":
    case "eth_accounts":
      return [w.address];
    case "eth_chainId":
      return numberToHex(chain.id);
    case "net_version":
      return String(chain.id);
    case "wallet_switchEthereumChain": {
      const [{ chainId }] = params as [{ chainId: Hex }];
      if (Number(chainId) !== chain.id) throw Object.assign(new Error("unknown chain"), { code: 4902 });
      return null;
    }
    case "wallet_requestPermissions":
    case "wallet_getPermissions":
      return [{ parentCapability: "eth_accounts" }];
    case "wallet_revokePermissions":
      return null;
    case "personal_sign":
      return w.account.signMessage({ message: { raw: params[0] as Hex } });
    case "eth_signTypedData_v4": {
      const typed = JSON.parse(params[1] as string) as TypedDataDefinition & { types: Record<string, unknown> };
      const { EIP712Domain: _domain, ...types } = typed.types;
      return w.account.signTypedData({ ...typed, types } as TypedDataDefinition);
    }
    case "eth_sendTransaction": {
      const [tx] = params as [{ to: Hex; data?: Hex; value?: Hex; gas?: Hex }];
      return w.wallet.sendTransaction({
        to: tx.to,
        data: tx.data,
        value: tx.value === undefined ? undefined : BigInt(tx.value),
        gas: tx.gas === undefined ? undefined : BigInt(tx.gas),
      });
    }
    default:
      return publicClient.request({ method: method as never, params: params as never });
  }
}

/** Injects a wallet named `name` into every page `context` opens from now on. */
export async function injectWallet(context: BrowserContext, name = "AgentHub Test Wallet"): Promise<TestWallet> {
  const wallet = newWallet();
  const requests: string[] = [];
  const bridge = `__testWallet_${randomUUID().replaceAll("-", "")}`;
  await context.exposeFunction(bridge, async (method: string, params: unknown[]) => {
    requests.push(method);
    try {
      return { result: await answer(wallet, method, params ?? []) };
    } catch (error) {
      const e = error as { message?: string; code?: number };
      return { error: { message: e.message ?? String(error), code: e.code ?? 4001 } };
    }
  });
  const info = {
    uuid: randomUUID(),
    name,
    icon: "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E",
    rdns: `test.agenthub.${bridge.slice(-8)}`,
  };
  // A string, not a function: tsx's transpiled functions reference helpers that do not exist in the page.
  await context.addInitScript(`(() => {
    const listeners = {};
    const provider = {
      isTestWallet: true,
      request: async ({ method, params }) => {
        const answer = await window[${JSON.stringify(bridge)}](method, params ?? []);
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
        return answer.result;
      },
      on: (event, fn) => { (listeners[event] ??= []).push(fn); return provider; },
      removeListener: (event, fn) => { listeners[event] = (listeners[event] ?? []).filter((f) => f !== fn); return provider; },
    };
    const detail = Object.freeze({ info: Object.freeze(${JSON.stringify(info)}), provider });
    const announce = () => window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail }));
    window.addEventListener("eip6963:requestProvider", announce);
    announce();
    if (!window.ethereum) window.ethereum = provider;
  })();`);
  return { address: wallet.address, name, requests, wallet };
}
