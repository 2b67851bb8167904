import { afterAll, describe, expect, it } from "vitest";
import { post, removeWhatWeMade, testHooks } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";

afterAll(removeWhatWeMade);

/** An image name no engine has: a start from it fails at once (workerd does not pull it). */
const MISSING_IMAGE = "cloud-ide-test-missing-image:none";

async function deleteWorkspace(id: string): Promise<void> {
  const response = await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" });
  expect(response.status).toBe(204);
}

describe("a failure under any Durable Object method answers its own code and status", () => {
  it("starting the dev server of a workspace whose container cannot start answers 503 CONTAINER_UNAVAILABLE", async () => {
    const id = await createWorkspace();
    await testHooks(id, { image: MISSING_IMAGE });
    const run = await post<{ code: string; message: string }>(`/api/workspaces/${id}/previews/dev-server`);
    expect(run.status, JSON.stringify(run.body)).toBe(503);
    expect(run.body).toEqual({ code: "CONTAINER_UNAVAILABLE", message: expect.stringMatching(/could not start/) });
    // Methods that do not start the container still answer.
    const terminals = await ownerApi(`/api/workspaces/${id}/terminals`);
    expect(terminals.status).toBe(200);
    expect(await terminals.json()).toEqual([]);
    await deleteWorkspace(id);
  });

  it("a preview of a workspace whose snapshot cannot be restored answers 503 SNAPSHOT_RESTORE_FAILED", async () => {
    const id = await createWorkspace();
    await testHooks(id, { snapshotId: "no-such-snapshot-errors" });
    const stop = await ownerApi(`/api/workspaces/${id}/previews/dev-server`, { method: "DELETE" });
    expect(stop.status).toBe(503);
    expect(await stop.json()).toMatchObject({ code: "SNAPSHOT_RESTORE_FAILED" });
    await deleteWorkspace(id);
  });

  it("another user's workspace, or a deleted one, answers 404 NOT_FOUND from every method", async () => {
    const id = await createWorkspace();
    await deleteWorkspace(id);
    for (const [method, path] of [
      ["GET", "terminals"],
      ["POST", "previews/dev-server"],
      ["POST", "save"],
      ["GET", "status"],
    ] as const) {
      const response = await ownerApi(`/api/workspaces/${id}/${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(await response.json()).toMatchObject({ code: "NOT_FOUND" });
    }
  });
});
