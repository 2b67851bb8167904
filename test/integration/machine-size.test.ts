import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import type { WorkspaceSettings } from "../../protocol/workspace";
import { peek, post, removeWhatWeMade, sh, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";

afterAll(removeWhatWeMade);

const json = { "Content-Type": "application/json" };

function settings(id: string, machine?: unknown): Promise<Response> {
  return machine === undefined
    ? ownerApi(`/api/workspaces/${id}/settings`)
    : ownerApi(`/api/workspaces/${id}/settings`, { method: "PUT", headers: json, body: JSON.stringify({ machine }) });
}

/** The memory limit (bytes) and CPU (nano CPUs) Docker gives the workspace's container. */
function limits(container: string): { memory: number; cpus: number } {
  const out = execFileSync("docker", ["inspect", "-f", "{{.HostConfig.Memory}} {{.HostConfig.NanoCpus}}", container]);
  const [memory, cpus] = out.toString().trim().split(" ").map(Number);
  return { memory: memory ?? 0, cpus: cpus ?? 0 };
}

describe("a workspace's machine size", () => {
  it("is the deployment's until chosen; a new one is checked, kept, and a running workspace restarts on it with its files", async () => {
    const id = await createWorkspace("machine size", "empty");
    const first = await settings(id);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ machine: "standard-1" } satisfies WorkspaceSettings);

    const { container } = await wake(id);
    expect(limits(container)).toEqual({ memory: 4096 * 1024 * 1024, cpus: 500_000_000 });
    sh(container, "echo kept > /workspace/note.txt");

    const refused = await settings(id, "huge");
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(/standard-1, standard-2/);
    expect(await (await settings(id)).json()).toEqual({ machine: "standard-1" });

    const changed = await settings(id, "standard-2");
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual({ machine: "standard-2" });
    expect(await peek(id)).toMatchObject({ state: "running", system: { machine: "standard-2" } });
    // The same container name, a new container: 6 GiB and 1 vCPU, the files still there.
    expect(limits(container)).toEqual({ memory: 6144 * 1024 * 1024, cpus: 1_000_000_000 });
    expect(sh(container, "cat /workspace/note.txt")).toBe("kept");
    expect(await (await settings(id)).json()).toEqual({ machine: "standard-2" });
  });

  it("is in the status while asleep, and a change then waits for the next start without waking it", async () => {
    const id = await createWorkspace("machine size asleep", "empty");
    const { container } = await wake(id);
    sh(container, "echo kept > /workspace/note.txt");
    expect((await post(`/api/workspaces/${id}/stop`)).status).toBe(200);
    const asleep = await peek(id);
    expect(asleep).toMatchObject({ state: "sleeping", machine: "standard-1" });
    expect(asleep.system).toBeUndefined();

    expect((await settings(id, "standard-2")).status).toBe(200);
    expect(await peek(id)).toMatchObject({ state: "sleeping", machine: "standard-2" });
    const woken = await wake(id);
    expect(woken.status).toMatchObject({ state: "running", machine: "standard-2", system: { machine: "standard-2" } });
    expect(limits(woken.container)).toEqual({ memory: 6144 * 1024 * 1024, cpus: 1_000_000_000 });
    expect(sh(woken.container, "cat /workspace/note.txt")).toBe("kept");
  });
});
