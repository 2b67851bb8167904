import { describe, expect, it } from "vitest";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { api } from "../support/api";
import { dockerExec, runContainers } from "../support/containers";
import { filesUrl } from "../support/files";
import { containerId, isRunning, peek, post, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";

describe("POST /api/workspaces/{id}/wake", () => {
  it("starts the workspace's container and reports uname -a from inside it", async () => {
    const id = await createWorkspace();
    const before = new Set(runContainers());
    const response = await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" });
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
    const first = (await (await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" })).json()) as WorkspaceStatus;
    const ours = runContainers().filter((name) => !before.has(name));
    expect(ours).toHaveLength(1);
    const started = containerId(ours[0] as string);
    const second = (await (await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" })).json()) as WorkspaceStatus;
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

describe("every GET is read-only", () => {
  it("a link on another site cannot wake a sleeping workspace: GETs report, only POST .../wake wakes", async () => {
    const id = await createWorkspace();
    const { container } = await wake(id);
    expect((await post(`/api/workspaces/${id}/stop`)).status).toBe(200);
    expect(isRunning(container)).toBe(false);
    // What a top-level navigation from another site sends: the owner's Lax cookie, a GET.
    const crossSite = { headers: { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" } };
    const status = await ownerApi(`/api/workspaces/${id}/status`, crossSite);
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ state: "sleeping" });
    for (const path of [
      filesUrl(id, "", { path: "." }),
      filesUrl(id, "/content", { path: "package.json" }),
      filesUrl(id, "/stat", { path: "package.json" }),
      filesUrl(id, "/download", { path: "src" }),
      `/api/workspaces/${id}/export`,
    ]) {
      const response = await ownerApi(path, crossSite);
      expect(response.status, path).toBe(409);
      expect(await response.json(), path).toMatchObject({ code: "WORKSPACE_ASLEEP" });
    }
    // A form on another site cannot POST the wake either.
    expect((await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST", ...crossSite })).status).toBe(403);
    expect(isRunning(container)).toBe(false);
    expect(await peek(id)).toMatchObject({ state: "sleeping" });

    // The IDE's own page wakes it with a POST, and reads work again.
    const woken = await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" });
    expect(await woken.json()).toMatchObject({ state: "running" });
    expect((await ownerApi(filesUrl(id, "/content", { path: "package.json" }))).status).toBe(200);
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
