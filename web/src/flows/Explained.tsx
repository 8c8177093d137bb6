// A button that does a signed action: first the app says in plain words what the wallet will be asked to sign, what
// it authorises and what it costs (SignatureRequest); only after "Sign in my wallet" does the wallet prompt.
import { useState } from "react";
import "./flows.css";
import { SignatureRequest } from "../wallet/SignatureRequest.tsx";
import { useWallet } from "../wallet/state.tsx";

export interface Explanation {
  title: string;
  lines: string[];
  cost: string;
}

export function Explained({
  label,
  explain,
  onConfirm,
  disabled,
  className,
}: {
  label: string;
  /** Built when the button is pressed (the form's values are final then); null: nothing to ask (invalid input). */
  explain: () => Explanation | null;
  onConfirm: () => void;
  disabled?: boolean;
  className?: string;
}) {
  const { wallet } = useWallet();
  const [asking, setAsking] = useState<Explanation | null>(null);
  return (
    <>
      <button type="button" className={className} disabled={disabled || !wallet} onClick={() => setAsking(explain())}>
        {label}
      </button>
      {asking ? (
        <SignatureRequest
          title={asking.title}
          lines={asking.lines}
          cost={asking.cost}
          onCancel={() => setAsking(null)}
          onConfirm={() => {
            setAsking(null);
            onConfirm();
          }}
        />
      ) : null}
    </>
  );
}

/** Shown where a flow needs a wallet and none is connected. */
export function ConnectFirst({ to }: { to: string }) {
  const { wallet } = useWallet();
  if (wallet) return null;
  return (
    <p className="note" role="note">
      Connect a wallet (top right) to {to}.
    </p>
  );
}
