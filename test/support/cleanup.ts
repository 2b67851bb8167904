/**
 * Every integration and e2e test file runs this first (vitest setupFiles):
 * a test deletes the owner's workspaces it made, and a file deletes those its
 * beforeAll made, so no container outlives the test that needed it (an idle
 * one would checkpoint, freezing its container, and idle-stop while later
 * tests run). Deleting destroys the container and everything stored for it.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import type { WorkspaceSummary } from "../../protocol/workspaces";
import { ownerApi } from "./session";

async function ownerWorkspaces(): Promise<Set<string>> {
  let response = await ownerApi("/api/workspaces");
  if (response.status >= 500) {
    // Housekeeping, not the thing under test: one more try, with the server's answer left in the output
    // (the server log holds the rest) so a failing server is still seen.
    console.warn(`cleanup: listing workspaces answered ${response.status}: ${await response.text()}; trying again`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    response = await ownerApi("/api/workspaces");
  }
  if (response.status !== 200) throw new Error(`listing workspaces: ${response.status} ${await response.text()}`);
  return new Set(((await response.json()) as WorkspaceSummary[]).map((w) => w.id));
}

async function deleteAllBut(keep: Set<string>): Promise<void> {
  for (const id of await ownerWorkspaces()) {
    if (keep.has(id)) continue;
    const response = await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" });
    // 404: the test deleted it itself.
    if (response.status !== 204 && response.status !== 404) {
      throw new Error(`deleting workspace ${id}: ${response.status} ${await response.text()}`);
    }
  }
}

let beforeFile = new Set<string>();
let beforeTest = new Set<string>();

beforeAll(async () => {
  beforeFile = await ownerWorkspaces();
});

beforeEach(async () => {
  beforeTest = await ownerWorkspaces();
});

afterEach(async () => {
  await deleteAllBut(beforeTest);
});

afterAll(async () => {
  await deleteAllBut(beforeFile);
});
