import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { WORKSPACE_ROUTE_GROUPS, WORKSPACE_ROUTES } from "../workspace-routes";
import { fullPath, GENERATED_END, GENERATED_START, renderApiReference, withGeneratedSection } from "./api-reference";

const API_DOC = fileURLToPath(new URL("../../docs/api.md", import.meta.url).href);

describe("the API reference (docs/api.md)", () => {
  it("lists every workspace route as the route tables declare it", () => {
    const document = readFileSync(API_DOC, "utf8");
    const expected = withGeneratedSection(document, renderApiReference(WORKSPACE_ROUTE_GROUPS));
    if (process.env.UPDATE_API_DOCS === "1") {
      if (expected !== document) writeFileSync(API_DOC, expected);
      return;
    }
    expect(
      document,
      "docs/api.md's generated section differs from the route tables: run `npm run docs:api` to refresh it.",
    ).toBe(expected);
  });

  it("gives every route a doc and a heading of its own", () => {
    const rendered = renderApiReference(WORKSPACE_ROUTE_GROUPS);
    for (const route of WORKSPACE_ROUTES) {
      const name = `${route.method} ${fullPath(route)}`;
      expect(route.doc.trim().length, `${name} has no doc`).toBeGreaterThan(10);
      expect(rendered, name).toContain(`#### \`${name}\``);
    }
  });

  it("puts the generated section between its markers, keeping what is around it", () => {
    const document = `intro\n${GENERATED_START}\nold\n${GENERATED_END}\noutro\n`;
    const replaced = withGeneratedSection(document, "new\n");
    expect(replaced).toBe(`intro\n${GENERATED_START}\n\nnew\n\n${GENERATED_END}\noutro\n`);
    expect(withGeneratedSection(replaced, "new\n")).toBe(replaced);
    expect(() => withGeneratedSection("no markers", "new\n")).toThrow(/must hold/);
  });

  it("reads the names of a query and a body from their object schemas", () => {
    const rendered = renderApiReference(WORKSPACE_ROUTE_GROUPS);
    expect(rendered).toContain(
      "#### `GET /api/workspaces/{id}/files`\n\nRole: viewer. Wake: read. Query: `path`, `wake?`.",
    );
    expect(rendered).toContain("#### `PATCH /api/workspaces/{id}`");
    expect(rendered).toContain("#### `GET /ws/workspaces/{id}/terminals/{name}`");
    expect(rendered).toMatch(
      /PUT \/api\/workspaces\/\{id\}\/files\/content`\n\n[^\n]*Body: the raw bytes, streamed \(Content-Length required, at most 100 MB\)/,
    );
  });
});
