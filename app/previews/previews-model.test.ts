import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PreviewAccess, PreviewsOverview } from "../../protocol/previews";
import { PreviewsModel } from "./previews-model";

const overview = (ports: number[]): PreviewsOverview =>
  ({ ports: ports.map((port) => ({ port })), devServer: { state: "stopped" } }) as unknown as PreviewsOverview;

/** A previews API that counts its calls; `open` hands out a new grant unless the held one is given back. */
function fakeApi() {
  const calls = { overview: 0, open: [] as { port: number; id?: string }[] };
  let next = 0;
  let failing: Error | undefined;
  const api = {
    overview: async () => {
      calls.overview++;
      if (failing) throw failing;
      return overview([5173]);
    },
    open: async (port: number, id?: string): Promise<PreviewAccess> => {
      calls.open.push({ port, id });
      if (failing) throw failing;
      const grant = id ?? `g${++next}`;
      return { port, id: grant, url: `https://${grant}.preview.test/` } as PreviewAccess;
    },
  };
  return { api, calls, fail: (error?: Error) => (failing = error) };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("PreviewsModel", () => {
  it("polls the overview while watched, and stops when the last watcher does", async () => {
    const { api, calls, fail } = fakeApi();
    const model = new PreviewsModel(api, { poll: 2_000, renew: 60_000 });
    const stopA = model.watch();
    const stopB = model.watch();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.overview).toBe(1);
    expect(model.getSnapshot().overview?.ports.map((p) => p.port)).toEqual([5173]);
    fail(new Error("The IDE server cannot be reached."));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(model.getSnapshot()).toMatchObject({ overviewError: "The IDE server cannot be reached." });
    expect(model.getSnapshot().overview).toBeDefined();
    fail(undefined);
    stopA();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(calls.overview).toBe(3);
    expect(model.getSnapshot().overviewError).toBeUndefined();
    stopB();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls.overview).toBe(3);
  });

  it("renews the shown port's grant, keeps the same URL object, and drops it for another port", async () => {
    const { api, calls } = fakeApi();
    const model = new PreviewsModel(api, { poll: 2_000, renew: 60_000 });
    let hide = model.show(5173);
    await vi.advanceTimersByTimeAsync(0);
    const first = model.getSnapshot().access;
    expect(first).toMatchObject({ port: 5173, id: "g1" });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls.open).toEqual([{ port: 5173 }, { port: 5173, id: "g1" }]);
    expect(model.getSnapshot().access).toBe(first);

    hide();
    hide = model.show(8080);
    expect(model.getSnapshot().access).toBeUndefined();
    await vi.advanceTimersByTimeAsync(0);
    expect(model.getSnapshot().access).toMatchObject({ port: 8080, id: "g2" });
    hide();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(calls.open).toHaveLength(3);
  });

  it("drops an answer that comes after the port changed", async () => {
    const { api } = fakeApi();
    let release: () => void = () => {};
    const slow = {
      ...api,
      open: (port: number, id?: string) =>
        new Promise<PreviewAccess>((resolve) => {
          release = () => void api.open(port, id).then(resolve);
        }),
    };
    const model = new PreviewsModel(slow);
    const hide = model.show(3000);
    hide();
    model.show(undefined);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(model.getSnapshot().access).toBeUndefined();
  });
});
