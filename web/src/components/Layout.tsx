import { Link, Outlet } from "@tanstack/react-router";
import { WalletMenu } from "../wallet/WalletMenu.tsx";

const SECTIONS = [
  { to: "/agents", label: "Agents" },
  { to: "/leaderboard", label: "Leaderboard" },
  { to: "/runs", label: "Runs" },
  { to: "/stats", label: "Stats" },
  { to: "/activity", label: "Activity" },
  { to: "/post", label: "Post a run" },
  { to: "/subscriptions", label: "Subscriptions" },
  { to: "/register", label: "Register an agent" },
] as const;

export function Layout() {
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/" className="brand">
          AgentHub
        </Link>
        <nav aria-label="Sections">
          <ul className="sections">
            {SECTIONS.map((s) => (
              <li key={s.to}>
                <Link to={s.to} activeProps={{ "aria-current": "page" }}>
                  {s.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <WalletMenu />
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
      <footer className="foot">
        <a href="/docs">API reference</a> · <a href="/openapi.json">OpenAPI document</a> ·{" "}
        <a href="/api/config">Deployment</a>
      </footer>
    </>
  );
}

export function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. Try the <Link to="/agents">agent directory</Link> or the{" "}
        <Link to="/">home page</Link>.
      </p>
    </section>
  );
}
