// The connected wallet, as the rest of the app sees it: an address, the wallet's name and an SDK signer. The wallet
// code itself (wagmi, EIP-6963 discovery) is loaded only when someone opens the wallet menu, so the explorer's first
// load carries none of it.
import type { AgentHub, Signer } from "@agenthub/sdk";
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";

export interface ConnectedWallet {
  address: `0x${string}`;
  walletName: string;
  signer: Signer;
  /** The SDK for this wallet's signed flows: chain reads through the wallet, progress reported to `onProgress`. */
  hub: AgentHub;
}

export interface WalletOption {
  id: string;
  name: string;
  icon?: string;
}

interface WalletContextValue {
  wallet: ConnectedWallet | null;
  /** Wallets found in the browser (EIP-6963 announcements and window.ethereum). */
  discover(): Promise<WalletOption[]>;
  connect(optionId: string): Promise<ConnectedWallet>;
  disconnect(): Promise<void>;
}

const WalletContext = createContext<WalletContextValue | null>(null);

const loadWallet = () => import("./connect.ts");

export function WalletProvider({ children }: { children: ReactNode }) {
  const [wallet, setWallet] = useState<ConnectedWallet | null>(null);
  const discover = useCallback(async () => (await loadWallet()).discoverWallets(), []);
  const connect = useCallback(async (optionId: string) => {
    const connected = await (await loadWallet()).connectWallet(optionId, () => setWallet(null));
    setWallet(connected);
    return connected;
  }, []);
  const disconnect = useCallback(async () => {
    await (await loadWallet()).disconnectWallet();
    setWallet(null);
  }, []);
  const value = useMemo(() => ({ wallet, discover, connect, disconnect }), [wallet, discover, connect, disconnect]);
  return <WalletContext.Provider value={value}>{children}</WalletContext.Provider>;
}

export function useWallet(): WalletContextValue {
  const value = useContext(WalletContext);
  if (!value) throw new Error("useWallet outside WalletProvider");
  return value;
}
