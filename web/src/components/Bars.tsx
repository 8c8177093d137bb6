// Horizontal bars for counts (share of the largest), readable as a plain list.
export function Bars({ items, label }: { items: { name: string; count: number }[]; label: string }) {
  const max = Math.max(1, ...items.map((i) => i.count));
  if (items.length === 0) return <p className="muted">Nothing yet.</p>;
  return (
    <ul className="bars" aria-label={label}>
      {items.map((item) => (
        <li key={item.name}>
          <span className="bar-name">{item.name}</span>
          <span className="bar-track" aria-hidden="true">
            <span className="bar-fill" style={{ width: `${(item.count / max) * 100}%` }} />
          </span>
          <span className="bar-count">{item.count}</span>
        </li>
      ))}
    </ul>
  );
}
