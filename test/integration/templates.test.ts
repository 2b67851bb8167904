import { describe, expect, it } from "vitest";
import { createWorkspace, ownerApi } from "../support/session";

async function names(id: string): Promise<string[]> {
  const response = await ownerApi(`/api/workspaces/${id}/files?path=.`);
  expect(response.status).toBe(200);
  const { entries } = (await response.json()) as { entries: { name: string }[] };
  return entries.map((e) => e.name).sort();
}

describe("workspace templates", () => {
  it("starts a new workspace from the Vite + React template, dependencies included", async () => {
    const id = await createWorkspace("from template");
    expect((await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" })).status).toBe(200);
    expect(await names(id)).toEqual(expect.arrayContaining(["index.html", "node_modules", "package.json", "src"]));
  });

  it("starts an empty workspace when asked", async () => {
    const id = await createWorkspace("empty one", "empty");
    expect((await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" })).status).toBe(200);
    expect(await names(id)).toEqual([]);
  });

  it("refuses an unknown template with 400", async () => {
    const response = await ownerApi("/api/workspaces", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "x", template: "rails" }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "INVALID_TEMPLATE" });
  });
});
