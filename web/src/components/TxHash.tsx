// A transaction hash, shortened for the eye and whole in its title and for copying (the local chain has no public
// explorer to link to).
export function TxHash({ hash }: { hash: string | null }) {
  if (!hash) return <span className="muted">—</span>;
  return (
    <code title={hash} className="tx">
      {hash.slice(0, 10)}…{hash.slice(-6)}
    </code>
  );
}
