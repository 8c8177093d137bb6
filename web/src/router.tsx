// The app's routes (TanStack Router, code-based). Each page is its own chunk, loaded when first visited; the
// explorer pages need no wallet. Part 2 (governance, organization dashboard) adds its routes beside these.
import { createRootRoute, createRoute, createRouter, lazyRouteComponent } from "@tanstack/react-router";
import { Layout, NotFound } from "./components/Layout.tsx";

const rootRoute = createRootRoute({ component: Layout, notFoundComponent: NotFound });

const homeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/",
  component: lazyRouteComponent(() => import("./pages/Home.tsx"), "HomePage"),
});
const agentsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/agents",
  component: lazyRouteComponent(() => import("./pages/Agents.tsx"), "AgentsPage"),
});
const agentRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/agents/$agentId",
  component: lazyRouteComponent(() => import("./pages/Agent.tsx"), "AgentPage"),
});
const leaderboardRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/leaderboard",
  component: lazyRouteComponent(() => import("./pages/Leaderboard.tsx"), "LeaderboardPage"),
});
const statsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/stats",
  component: lazyRouteComponent(() => import("./pages/Stats.tsx"), "StatsPage"),
});
const runsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/runs",
  component: lazyRouteComponent(() => import("./pages/Runs.tsx"), "RunsPage"),
});
const runRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/runs/$runId",
  component: lazyRouteComponent(() => import("./pages/Run.tsx"), "RunPage"),
});
const activityRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/activity",
  component: lazyRouteComponent(() => import("./pages/Activity.tsx"), "ActivityPage"),
});

// Agent owners (a wallet signs each write) and posters.
const registerRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/register",
  component: lazyRouteComponent(() => import("./pages/owner/Register.tsx"), "RegisterPage"),
});
// The claimURL the API hands out (/claim/<code>): the API answers the app's HTML there for a well-formed code.
const claimRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/claim/$claimCode",
  component: lazyRouteComponent(() => import("./pages/owner/Claim.tsx"), "ClaimPage"),
});
const consoleRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/console/$agentId",
  component: lazyRouteComponent(() => import("./pages/owner/Console.tsx"), "ConsolePage"),
});
const postRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/post",
  component: lazyRouteComponent(() => import("./pages/poster/Post.tsx"), "PostPage"),
});
const subscriptionsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/subscriptions",
  component: lazyRouteComponent(() => import("./pages/poster/Subscriptions.tsx"), "SubscriptionsPage"),
});

const routeTree = rootRoute.addChildren([
  homeRoute,
  agentsRoute,
  agentRoute,
  leaderboardRoute,
  statsRoute,
  runsRoute,
  runRoute,
  activityRoute,
  registerRoute,
  claimRoute,
  consoleRoute,
  postRoute,
  subscriptionsRoute,
]);

export const router = createRouter({ routeTree, defaultPreload: "intent", scrollRestoration: true });

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
