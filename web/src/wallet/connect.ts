// Loaded on demand: wagmi finds the browser's wallets (EIP-6963 announcements, several side by side, and the legacy
// window.ethereum), connects one on chain 84532 and hands the SDK a signer backed by it. Every signature then goes
// through the wallet's own prompt; the app explains each request before asking (see SignatureRequest).
import { AgentHub, type Progress, toSigner } from "@agenthub/sdk";
import { createPublicClient, custom, type EIP1193Provider } from "viem";
import { createConfig, http } from "wagmi";
import { connect, disconnect, getConnectors, getWalletClient, watchAccount } from "wagmi/actions";
import { baseSepolia } from "wagmi/chains";
import { injected } from "wagmi/connectors";
import type { ConnectedWallet, WalletOption } from "./state.tsx";

// Reads go through the API; the transport is only wagmi's required default and is never used for the wallet's calls.
const config = createConfig({
  chains: [baseSepolia],
  connectors: [injected()],
  multiInjectedProviderDiscovery: true,
  transports: { [baseSepolia.id]: http("/rpc-unused") },
});

/** Announcements arrive asynchronously after the request event: give them a moment before listing. */
const DISCOVERY_WAIT_MS = 150;

export async function discoverWallets(): Promise<WalletOption[]> {
  await new Promise((resolve) => setTimeout(resolve, DISCOVERY_WAIT_MS));
  const announced = getConnectors(config).filter((c) => c.id !== "injected");
  // The generic injected connector only when no wallet announced itself (it is one of them otherwise).
  const list = announced.length > 0 ? announced : getConnectors(config);
  return list.map((c) => ({ id: c.uid, name: c.name, icon: c.icon }));
}

let stopWatching: (() => void) | undefined;

/** Where the SDK reports a flow's progress (signature, API, chain, the indexer's catch-up): the page showing it. */
const progressListeners = new Set<(progress: Progress) => void>();
export function onProgress(listener: (progress: Progress) => void): () => void {
  progressListeners.add(listener);
  return () => progressListeners.delete(listener);
}

export async function connectWallet(optionId: string, onGone: () => void): Promise<ConnectedWallet> {
  const connector = getConnectors(config).find((c) => c.uid === optionId);
  if (!connector) throw new Error("that wallet is no longer available; open the wallet menu again");
  const { accounts } = await connect(config, { connector, chainId: baseSepolia.id });
  const client = await getWalletClient(config, { connector, account: accounts[0] });
  stopWatching?.();
  stopWatching = watchAccount(config, {
    onChange: (account) => {
      if (account.status === "disconnected") onGone();
    },
  });
  // Chain reads a signed flow needs (permit nonces, receipts) go through the wallet's own provider: the page has no
  // RPC of its own (connect-src 'self'), and the wallet is on the chain it signs for.
  const provider = (await connector.getProvider()) as EIP1193Provider;
  const publicClient = createPublicClient({ chain: baseSepolia, transport: custom(provider), pollingInterval: 500 });
  const hub = new AgentHub({
    apiUrl: location.origin,
    publicClient: publicClient as never,
    onProgress: (progress) => {
      for (const listener of progressListeners) listener(progress);
    },
  });
  return { address: accounts[0], walletName: connector.name, signer: toSigner(client), hub };
}

export async function disconnectWallet(): Promise<void> {
  stopWatching?.();
  stopWatching = undefined;
  await disconnect(config);
}
