// `npm start`'s build check (build.ts) on a folder of its own: a build that writes what compile + gen-abis write
// (an artifact per contract, the generated files and the stamp, through the same writeBuildStamp) stands in for the
// slow compiler, so every case below runs the real decision and the real stamp.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, beforeEach, describe, it } from "node:test";
import { type BuildLayout, buildIsCurrent, ensureBuild, layoutOf, writeBuildStamp } from "./build.ts";

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function write(file: string, text: string) {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
}

/** A project with two contracts and its config, nothing built. */
function project(): BuildLayout {
  const root = mkdtempSync(join(tmpdir(), "agenthub-build-"));
  roots.push(root);
  const layout = layoutOf(root);
  write(join(layout.contractsDir, "A.sol"), "contract A {}\n");
  write(join(layout.contractsDir, "sub", "B.sol"), "contract B {}\n");
  for (const file of layout.configFiles) write(file, `// ${file}\n`);
  return layout;
}

let builds = 0;
/** What `hardhat compile` and gen-abis leave behind. */
function build(layout: BuildLayout) {
  builds++;
  write(join(layout.artifactsDir, "A.sol", "A.json"), "{}");
  write(join(layout.artifactsDir, "A.sol", "A.dbg.json"), "{}");
  write(join(layout.artifactsDir, "sub", "B.sol", "B.json"), "{}");
  write(join(layout.generatedDir, "abis.ts"), "export {};\n");
  write(join(layout.generatedDir, "bytecode.ts"), "export {};\n");
  writeBuildStamp(layout);
}
const ensure = (layout: BuildLayout) => ensureBuild(() => {}, { layout, build });

describe("npm start's build check", () => {
  let layout: BuildLayout;
  beforeEach(() => {
    layout = project();
    builds = 0;
  });

  it("builds a fresh clone, then skips while everything is current", () => {
    assert.equal(buildIsCurrent(layout), false);
    assert.equal(ensure(layout), true);
    assert.equal(builds, 1);
    assert.equal(buildIsCurrent(layout), true);
    assert.equal(ensure(layout), false);
    assert.equal(ensure(layout), false);
    assert.equal(builds, 1);
  });

  it("rebuilds after `hardhat clean` (artifacts gone, generated files and stamp left)", () => {
    ensure(layout);
    rmSync(join(layout.root, "artifacts"), { recursive: true });
    assert.equal(buildIsCurrent(layout), false);
    assert.equal(ensure(layout), true);
    assert.equal(builds, 2);
  });

  it("rebuilds when one artifact or one generated file is missing", () => {
    ensure(layout);
    rmSync(join(layout.artifactsDir, "sub", "B.sol", "B.json"));
    assert.equal(ensure(layout), true);
    rmSync(join(layout.generatedDir, "bytecode.ts"));
    assert.equal(ensure(layout), true);
    assert.equal(builds, 3);
    assert.equal(buildIsCurrent(layout), true);
  });

  it("rebuilds when a source, a new source or the config changed (stale)", () => {
    ensure(layout);
    write(join(layout.contractsDir, "A.sol"), "contract A { uint x; }\n");
    assert.equal(ensure(layout), true);
    write(join(layout.contractsDir, "C.sol"), "contract C {}\n");
    assert.equal(ensure(layout), true);
    write(layout.configFiles[0]!, "// other settings\n");
    assert.equal(ensure(layout), true);
    assert.equal(builds, 4);
  });

  it("rebuilds over a stamp from an older generator (a bare fingerprint)", () => {
    ensure(layout);
    write(
      join(layout.generatedDir, ".sources.sha256"),
      "d1fecef0711cfd4833c8f3f45fd910656de53cfa195f59a4f3aa42b15eb310fa\n",
    );
    assert.equal(ensure(layout), true);
  });

  it("fails loudly when the build leaves its outputs missing", () => {
    assert.throws(() => ensureBuild(() => {}, { layout, build: () => {} }), /outputs are still missing or stale/);
  });
});
