// Before any wallet prompt: what the signature authorises and what it costs, in plain words. The wallet asks only
// after the person confirms here.
import { useEffect, useRef, useState } from "react";

export function SignatureRequest({
  title,
  lines,
  cost,
  onConfirm,
  onCancel,
}: {
  title: string;
  lines: string[];
  cost: string;
  onConfirm: () => Promise<void> | void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog ref={dialog} className="sign" aria-labelledby="sign-title" onCancel={onCancel}>
      <h2 id="sign-title">{title}</h2>
      <ul>
        {lines.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <p>
        Cost: <strong>{cost}</strong>
      </p>
      <div className="row">
        <button
          type="button"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await onConfirm();
            } finally {
              setBusy(false);
            }
          }}
        >
          {busy ? "Waiting for your wallet…" : "Sign in my wallet"}
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
