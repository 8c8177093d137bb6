// The header's wallet button: lists the wallets this browser offers (EIP-6963, several side by side), connects one,
// shows which address is connected. Opening it is what loads the wallet code.
import { useState } from "react";
import { ErrorNote } from "../components/Status.tsx";
import { shortAddress } from "../format.ts";
import { useWallet, type WalletOption } from "./state.tsx";

export function WalletMenu() {
  const { wallet, discover, connect, disconnect } = useWallet();
  const [options, setOptions] = useState<WalletOption[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  if (wallet) {
    return (
      <div className="wallet">
        <span title={wallet.address}>
          {wallet.walletName}: <code>{shortAddress(wallet.address)}</code>
        </span>
        <button type="button" className="secondary" onClick={() => void disconnect()}>
          Disconnect
        </button>
      </div>
    );
  }
  return (
    <div className="wallet">
      <button
        type="button"
        aria-expanded={options !== null}
        aria-controls="wallet-list"
        onClick={async () => {
          if (options) return setOptions(null);
          setError(null);
          try {
            setOptions(await discover());
          } catch (e) {
            setError(e);
          }
        }}
      >
        Connect wallet
      </button>
      {options ? (
        <div id="wallet-list" className="menu">
          {options.length === 0 ? <p>No browser wallet found. Install one (any EIP-6963 wallet) and reload.</p> : null}
          <ul>
            {options.map((option) => (
              <li key={option.id}>
                <button
                  type="button"
                  disabled={busy}
                  onClick={async () => {
                    setBusy(true);
                    setError(null);
                    try {
                      await connect(option.id);
                      setOptions(null);
                    } catch (e) {
                      setError(e);
                    } finally {
                      setBusy(false);
                    }
                  }}
                >
                  {option.icon ? <img src={option.icon} alt="" width={20} height={20} /> : null}
                  {option.name}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {error ? <ErrorNote error={error} /> : null}
    </div>
  );
}
