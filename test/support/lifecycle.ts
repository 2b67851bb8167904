/** Helpers for tests of sleeping, saving and waking workspaces. */
import { execFileSync } from "node:child_process";
import { expect } from "vitest";
import type { SaveResult, WorkspaceStatus } from "../../protocol/workspace";
import { runContainers } from "./containers";
import { ownerApi } from "./session";

/** As the owner (test/support/api.ts explains why every request has a connection of its own). */
const request = ownerApi;

/** What this file's tests made: containers and snapshot images (`docker commit`s named by snapshot id). */
const made = { containers: new Set<string>(), snapshots: [] as string[] };

function remember(status: WorkspaceStatus | SaveResult): void {
  const id = "snapshotId" in status ? status.snapshotId : undefined;
  if (id && !made.snapshots.includes(id)) made.snapshots.push(id);
}

/**
 * Removes the containers and snapshot images this file's workspaces made
 * (newest snapshot first: a snapshot of a restored container builds on the
 * older one). Call from afterAll.
 */
export function removeWhatWeMade(): void {
  for (const name of made.containers) execFileSync("docker", ["rm", "-f", name], { stdio: "ignore" });
  for (const id of [...made.snapshots].reverse()) {
    try {
      execFileSync("docker", ["rmi", `workerd-container-snap-${id}`], { stdio: "ignore" });
    } catch {
      // Already gone, or not a local docker image (bogus ids in tests).
    }
  }
}

/**
 * Wakes (or starts) a workspace (`POST .../wake`) and returns the status and its container's name.
 * A start the engine failed (CONTAINER_UNAVAILABLE: on a loaded machine Docker can miss workerd's wait
 * for the network sidecar a few times running) is asked for again, twice at most, as an open page does
 * by itself (worker/lifecycle/settings.ts, failedStartPause); each is logged.
 */
export async function wake(id: string): Promise<{ status: WorkspaceStatus; container: string }> {
  const before = new Set(runContainers());
  let status: WorkspaceStatus;
  for (let attempt = 1; ; attempt++) {
    const response = await request(`/api/workspaces/${id}/wake`, { method: "POST" });
    expect(response.status).toBe(200);
    status = (await response.json()) as WorkspaceStatus;
    if (attempt === 3 || status.state !== "failed" || status.error?.code !== "CONTAINER_UNAVAILABLE") break;
    console.warn(`wake ${id}: the start failed (${status.error.message}); asking again, as an open page would`);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
  expect(status, JSON.stringify(status)).toMatchObject({ id, state: "running" });
  remember(status);
  const started = runContainers().filter((name) => !before.has(name));
  if (started.length === 1) {
    made.containers.add(started[0] as string);
    return { status, container: started[0] as string };
  }
  // Already running: the container whose kernel line matches is not enough to
  // tell them apart, so each test keeps the name it got when it started.
  throw new Error(`expected one new container for ${id}, saw ${started.length}`);
}

export async function peek(id: string): Promise<WorkspaceStatus> {
  const response = await request(`/api/workspaces/${id}/status?wake=0`);
  expect(response.status).toBe(200);
  const status = (await response.json()) as WorkspaceStatus;
  remember(status);
  return status;
}

export async function post<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await request(path, { method: "POST", ...init });
  const text = await response.text();
  const body = text ? JSON.parse(text) : undefined;
  if (body && typeof body.snapshotId === "string") remember(body);
  if (body && typeof body.saved?.snapshotId === "string") remember(body.saved);
  return { status: response.status, body: body as T };
}

export async function save(id: string): Promise<SaveResult> {
  const { status, body } = await post<SaveResult>(`/api/workspaces/${id}/save`);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

/**
 * Sets test-only lifecycle timings (ms), a snapshot id or an image to start from, or a small disk
 * ("/workspace/NAME:SIZE", a tmpfs its next containers get), for one workspace.
 */
export async function testHooks(
  id: string,
  options: { overrides?: Record<string, number>; snapshotId?: string; image?: string; smallDisk?: string },
): Promise<void> {
  const { status } = await post(`/api/workspaces/${id}/test-hooks/lifecycle`, {
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(options),
  });
  expect(status).toBe(204);
}

/** The container killed from outside, as a host failure would: no save, no stop. */
export function kill(container: string): void {
  execFileSync("docker", ["kill", "-s", "KILL", container], { stdio: "ignore" });
}

/** One entry of the save journal, as the test hook lists it. */
export interface JournalEntry {
  kind: "write" | "delete" | "rename";
  path: string;
  to?: string;
}

/** The save journal as it stands: its index and its objects in R2 (test hook). */
export async function journal(id: string): Promise<{ ops: JournalEntry[]; objects: string[] }> {
  const { status, body } = await post<{ ops: JournalEntry[]; objects: string[] }>(
    `/api/workspaces/${id}/test-hooks/journal`,
  );
  expect(status).toBe(200);
  return body;
}

export function isRunning(container: string): boolean {
  return runContainers().includes(container);
}

/** Docker's id of the running container with this name: a restarted container keeps its name. */
export function containerId(name: string): string {
  return execFileSync("docker", ["inspect", "--format", "{{.Id}}", name], { encoding: "utf8" }).trim();
}

/** `sh -c script` in a container from outside the IDE. */
export function sh(container: string, script: string): string {
  try {
    return execFileSync("docker", ["exec", container, "sh", "-c", script], { encoding: "utf8", stdio: "pipe" }).trim();
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`in ${container}: ${script}\nstdout: ${stdout}\nstderr: ${stderr}`);
  }
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 60_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
