// Writes docs/errors.md from the API's error catalogue (api/src/errors.ts, explained by api/src/error-docs.ts): every
// code the API answers with, its status(es) and when. Run by `pnpm run compile`; api/test/errors.test.ts fails when
// the committed file differs from what this renders.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderErrorsDoc } from "@agenthub/api/error-docs";

const root = new URL("..", import.meta.url).pathname;
writeFileSync(join(root, "docs", "errors.md"), renderErrorsDoc());
