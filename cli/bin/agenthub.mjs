#!/usr/bin/env node
// The published entry point: the bundled CLI (cli/dist, `pnpm --filter @agenthub/cli build`). In this repository
// `pnpm agenthub …` runs the TypeScript sources instead.
import { main } from "../dist/agenthub.mjs";

process.exitCode = await main(process.argv);
