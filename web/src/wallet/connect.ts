// Loaded on demand: wagmi finds the browser's wallets (EIP-6963 announcements, several side by side, and the legacy
// window.ethereum), connects one on chain 84532 and hands the SDK a signer backed by it. Every signature then goes
// through the wallet's own prompt; the app explains each request before asking (see SignatureRequest).
import { toSigner } from "@agenthub/sdk";
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
  return { address: accounts[0], walletName: connector.name, signer: toSigner(client) };
}

export async function disconnectWallet(): Promise<void> {
  stopWatching?.();
  stopWatching = undefined;
  await disconnect(config);
}
