import { describe, expect, it } from "vitest";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { api } from "../support/api";
import { dockerExec, runContainers } from "../support/containers";
import { containerId } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";

describe("GET /api/workspaces/{id}/status", () => {
  it("starts the workspace's container and reports uname -a from inside it", async () => {
    const id = await createWorkspace();
    const before = new Set(runContainers());
    const response = await ownerApi(`/api/workspaces/${id}/status`);
    expect(response.status).toBe(200);
    const status = (await response.json()) as WorkspaceStatus;
    expect(status, JSON.stringify(status.error)).toMatchObject({ id, state: "running" });

    const started = runContainers().filter((name) => !before.has(name));
    expect(started).toHaveLength(1);
    // The kernel line is the container's own: same as docker exec sees it.
    expect(status.kernel).toBe(dockerExec(started[0] as string, ["uname", "-a"]));
  });

  it("answers again from the same container", async () => {
    const id = await createWorkspace();
    const before = new Set(runContainers());
    const first = (await (await ownerApi(`/api/workspaces/${id}/status`)).json()) as WorkspaceStatus;
    const ours = runContainers().filter((name) => !before.has(name));
    expect(ours).toHaveLength(1);
    const started = containerId(ours[0] as string);
    const second = (await (await ownerApi(`/api/workspaces/${id}/status`)).json()) as WorkspaceStatus;
    expect(second.kernel).toBe(first.kernel);
    // The same container answered: it was neither replaced nor joined by another.
    expect(containerId(ours[0] as string)).toBe(started);
    expect(runContainers().filter((name) => !before.has(name))).toEqual(ours);
  });

  it("refuses a workspace id that is not a lowercase DNS label with 400", async () => {
    for (const bad of ["Bad_Id", "has-hyphen", "x".repeat(64), "a.b"]) {
      const response = await ownerApi(`/api/workspaces/${bad}/status`);
      expect(response.status, bad).toBe(400);
      expect(await response.json()).toMatchObject({ code: "INVALID_WORKSPACE_ID" });
    }
  });
});

describe("routing", () => {
  it("answers an unknown API route with 404 JSON carrying a code", async () => {
    const response = await ownerApi("/api/no/such/route");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toMatchObject({ code: "NOT_FOUND", message: expect.any(String) });
  });

  it("serves the app for other paths", async () => {
    const response = await api("/workspaces/default");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<div id="root">');
  });
});
