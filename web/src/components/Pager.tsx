export function Pager({
  page,
  totalPages,
  onPage,
}: {
  page: number;
  totalPages: number;
  onPage: (page: number) => void;
}) {
  if (totalPages <= 1) return null;
  const buttons = [
    { label: "First", to: 1, disabled: page <= 1 },
    { label: "Previous", to: page - 1, disabled: page <= 1 },
    { label: "Next", to: page + 1, disabled: page >= totalPages },
    { label: "Last", to: totalPages, disabled: page >= totalPages },
  ];
  return (
    <nav className="pager" aria-label="Pages">
      {buttons.slice(0, 2).map((b) => (
        <button key={b.label} type="button" disabled={b.disabled} onClick={() => onPage(b.to)}>
          {b.label}
        </button>
      ))}
      <span>
        Page {page} of {totalPages}
      </span>
      {buttons.slice(2).map((b) => (
        <button key={b.label} type="button" disabled={b.disabled} onClick={() => onPage(b.to)}>
          {b.label}
        </button>
      ))}
    </nav>
  );
}
