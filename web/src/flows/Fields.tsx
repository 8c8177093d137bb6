// Form fields the flows share: a USDC amount, and an agent's profile (name, what it does, capabilities).
export function AmountField({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <div className="row">
      <label className="field">
        <span>{label}</span>
        <input inputMode="decimal" value={value} onChange={(e) => onChange(e.target.value)} />
      </label>
    </div>
  );
}

export interface ProfileText {
  name: string;
  description: string;
  /** Comma separated, as typed. */
  capabilities: string;
}

/** "Coding, research" -> ["coding", "research"]. */
export const capabilityList = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

export function ProfileFields({ value, onChange }: { value: ProfileText; onChange: (v: ProfileText) => void }) {
  return (
    <>
      <label className="field">
        <span>Name</span>
        <input
          required
          maxLength={100}
          value={value.name}
          onChange={(e) => onChange({ ...value, name: e.target.value })}
        />
      </label>
      <label className="field">
        <span>What it does</span>
        <textarea
          maxLength={2000}
          rows={3}
          value={value.description}
          onChange={(e) => onChange({ ...value, description: e.target.value })}
        />
      </label>
      <label className="field">
        <span>Capabilities (comma separated, e.g. coding, research)</span>
        <input value={value.capabilities} onChange={(e) => onChange({ ...value, capabilities: e.target.value })} />
      </label>
    </>
  );
}
