import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiRequestError, apiJson, ClientErrorCode } from "./http";

/** A fetch whose first `drops` calls fail as Chromium's do when the network changes. */
function flakyFetch(drops: number) {
  const calls: string[] = [];
  const fetch = vi.fn(async (_path: string, init?: RequestInit) => {
    calls.push(init?.method ?? "GET");
    if (calls.length <= drops) throw new TypeError("Failed to fetch");
    return Response.json({ ok: true });
  });
  vi.stubGlobal("fetch", fetch);
  return calls;
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("apiJson when the network drops a request", () => {
  it("reads again", async () => {
    const calls = flakyFetch(1);
    expect(await apiJson("/api/x")).toEqual({ ok: true });
    expect(calls).toEqual(["GET", "GET"]);
  });

  it("repeats a write marked idempotent (wake, start the dev server)", async () => {
    const calls = flakyFetch(2);
    expect(await apiJson("/api/x", { method: "POST", idempotent: true })).toEqual({ ok: true });
    expect(calls).toEqual(["POST", "POST", "POST"]);
  });

  it("does not repeat another write, and says the server cannot be reached", async () => {
    const calls = flakyFetch(1);
    const failure = await apiJson("/api/x", { method: "POST" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiRequestError);
    expect((failure as ApiRequestError).code).toBe(ClientErrorCode.NETWORK);
    expect(calls).toEqual(["POST"]);
  });

  it("gives up after its retries", async () => {
    vi.useFakeTimers();
    const calls = flakyFetch(10);
    const pending = apiJson("/api/x").catch((error: unknown) => error);
    await vi.runAllTimersAsync();
    const failure = await pending;
    expect((failure as ApiRequestError).code).toBe(ClientErrorCode.NETWORK);
    expect(calls).toHaveLength(6);
  });
});
