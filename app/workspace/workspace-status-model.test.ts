import { afterEach, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../protocol/errors";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { ApiRequestError, ClientErrorCode } from "../api/http";
import { WorkspaceStatusModel } from "./workspace-status-model";

/** A status API whose answers the test gives one by one; it records whether each call woke. */
function fakeApi() {
  const calls: { wake: boolean; answer: (status: Partial<WorkspaceStatus> | Error) => void }[] = [];
  const api = {
    status: ({ wake }: { wake: boolean }) =>
      new Promise<WorkspaceStatus>((resolve, reject) => {
        calls.push({
          wake,
          answer: (status) =>
            status instanceof Error ? reject(status) : resolve({ id: "w1", state: "running", ...status }),
        });
      }),
  };
  return { api, calls };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  vi.useRealTimers();
});

describe("WorkspaceStatusModel", () => {
  it("wakes the workspace once on start, then polls without waking, faster while it starts", async () => {
    vi.useFakeTimers();
    const { api, calls } = fakeApi();
    const model = new WorkspaceStatusModel(api, { idle: 10_000, busy: 1_000 });
    const seen: string[] = [];
    model.subscribe(() => seen.push(model.getSnapshot().state));
    const stop = model.start();
    expect(calls.map((c) => c.wake)).toEqual([true]);
    expect(model.getSnapshot().state).toBe("starting");

    // A poll during the wake call reports its boot phase, not an older state.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.map((c) => c.wake)).toEqual([true, false]);
    calls[1]?.answer({ state: "sleeping" });
    await vi.advanceTimersByTimeAsync(0);
    expect(model.getSnapshot().state).toBe("starting");

    calls[0]?.answer({ state: "running", kernel: "Linux" });
    await vi.advanceTimersByTimeAsync(0);
    expect(model.getSnapshot()).toMatchObject({ state: "running", kernel: "Linux" });

    // Running and nothing in progress: the next poll comes after the idle interval only.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toHaveLength(3);
    calls[2]?.answer({ state: "running", kernel: "Linux" });
    await vi.advanceTimersByTimeAsync(9_999);
    expect(calls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.map((c) => c.wake)).toEqual([true, false, false, false]);

    stop();
    calls[3]?.answer({ state: "sleeping" });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(4);
    expect(seen).toContain("running");
    // An answer the page shows already is not published again.
    expect(seen.filter((state) => state === "running")).toHaveLength(1);
  });

  it("shows a failed read as a failed state with the server's code, keeping what it knew", async () => {
    const { api, calls } = fakeApi();
    const model = new WorkspaceStatusModel(api);
    const refreshed = model.refresh();
    calls[0]?.answer({ state: "running", lastSavedAt: "2026-01-01T00:00:00.000Z" });
    await refreshed;
    const polled = model.poll();
    calls[1]?.answer(new ApiRequestError(503, ErrorCode.CONTAINER_UNAVAILABLE, "The container is gone."));
    await polled;
    expect(model.getSnapshot()).toEqual({
      state: "failed",
      lastSavedAt: "2026-01-01T00:00:00.000Z",
      error: { code: ErrorCode.CONTAINER_UNAVAILABLE, message: "The container is gone." },
      id: "w1",
    });
  });

  it("calls anything else that fails a network failure", async () => {
    const { api, calls } = fakeApi();
    const model = new WorkspaceStatusModel(api);
    const polled = model.poll();
    calls[0]?.answer(new TypeError("Failed to fetch"));
    await polled;
    await flush();
    expect(model.getSnapshot().error?.code).toBe(ClientErrorCode.NETWORK);
  });
});
