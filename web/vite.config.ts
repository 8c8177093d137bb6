// Builds the app into dist/ (served by the API at /, see api/src/routes/web-app.ts). `pnpm --filter @agenthub/web dev`
// runs a hot-reload server that proxies the API's paths to API_URL (default http://localhost:3000).
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const api = process.env.API_URL ?? "http://localhost:3000";
const proxied = ["/api", "/ipfs", "/docs", "/openapi.json", "/health", "/ready"];

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The API's CSP allows no inline script: Vite's module preload polyfill would be one.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    // dist/.vite/manifest.json: which chunks each page loads (bench/web-budget.ts and its test measure first loads).
    manifest: true,
  },
  server: {
    port: Number(process.env.WEB_DEV_PORT ?? 5173),
    proxy: Object.fromEntries(proxied.map((path) => [path, { target: api, changeOrigin: true }])),
  },
});
