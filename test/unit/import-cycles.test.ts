import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importCycles } from "../../scripts/lib/import-cycles.mjs";

const root = mkdtempSync(join(tmpdir(), "import-cycles-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A tree of TypeScript files under a fresh folder, and its cycles as check-cycles.mjs finds them. */
async function cyclesOf(name: string, files: Record<string, string>, folders?: string) {
  const base = join(root, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(base, file)), { recursive: true });
    writeFileSync(join(base, file), text);
  }
  return (await importCycles({ paths: [join(base, "app")], baseDir: base, folders })).cycles;
}

describe("the import-cycle check (npm test -- static)", () => {
  it("finds a cycle held together by type imports alone", async () => {
    const cycles = await cyclesOf("types", {
      "app/env.ts": 'import type { Route } from "./route";\nexport type Env = { route?: Route };\n',
      "app/route.ts": 'import type { Env } from "./env";\nexport type Route = { env?: Env };\n',
    });
    expect(cycles).toEqual([["app/env.ts", "app/route.ts"]]);
  });

  it("finds feature folders that import each other through different files", async () => {
    const files = {
      "app/editor/editor.ts": 'import { tree } from "../files/tree";\nexport const editor = () => tree;\n',
      "app/files/tree.ts": "export const tree = 1;\n",
      "app/files/open.ts": 'import { editor } from "../editor/editor";\nexport const open = editor;\n',
    };
    expect(await cyclesOf("folders-by-file", files)).toEqual([]);
    expect(await cyclesOf("folders", files, "app")).toEqual([["app/editor/", "app/files/"]]);
  });

  it("finds none in a tree whose imports go one way", async () => {
    const files = {
      "app/main.ts": 'import { editor } from "./editor/editor";\nexport default editor;\n',
      "app/editor/editor.ts": 'import { tree } from "../files/tree";\nexport const editor = () => tree;\n',
      "app/files/tree.ts": 'import type { Env } from "../env";\nexport const tree: Env = {};\n',
      "app/env.ts": "export type Env = object;\n",
    };
    expect(await cyclesOf("clean", files, "app")).toEqual([]);
  });
});
