#!/usr/bin/env node
// The published entry point: the built CLI (cli/dist). In this repository use `pnpm agenthub …`, which runs the
// TypeScript sources.
import { main } from "../dist/main.js";

process.exitCode = await main(process.argv);
