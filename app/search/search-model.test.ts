import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SearchEvent, SearchQuery } from "../../protocol/search";
import type { SearchCallbacks } from "../api/search";
import { SearchModel, toQuery } from "./search-model";

type Done = Extract<SearchEvent, { type: "done" }>;

/** A search API whose searches the test finishes by hand. */
function fakeApi() {
  const calls: {
    query: SearchQuery;
    callbacks: SearchCallbacks;
    finish: (done?: Partial<Done>) => void;
    fail: (e: Error) => void;
  }[] = [];
  const cancel = vi.fn(async () => {});
  const api = {
    cancel,
    search: (query: SearchQuery, callbacks: SearchCallbacks) =>
      new Promise<Done>((resolve, reject) => {
        calls.push({
          query,
          callbacks,
          finish: (done = {}) => resolve({ type: "done", files: 0, matches: 0, elapsedMs: 1, ...done }),
          fail: reject,
        });
      }),
  };
  return { api, calls, cancel };
}

const match = (line: number) => ({ line, column: 1, text: `line ${line}`, ranges: [[0, 4]] as [number, number][] });

describe("the search model", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("searches once typing pauses, and a new query aborts the running one", async () => {
    const { api, calls } = fakeApi();
    const model = new SearchModel(api, 200);
    model.set({ query: "ne" });
    vi.advanceTimersByTime(100);
    model.set({ query: "needle" });
    vi.advanceTimersByTime(199);
    expect(calls).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.query.q).toBe("needle");
    expect(model.getSnapshot().status).toBe("searching");

    model.set({ query: "needles" });
    vi.advanceTimersByTime(200);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.callbacks.signal?.aborted).toBe(true);
    expect(calls[1]?.callbacks.signal?.aborted).toBe(false);
  });

  it("groups streamed matches by file in the order found, shown in batches, then done", async () => {
    const { api, calls } = fakeApi();
    const model = new SearchModel(api, 0);
    const seen = vi.fn();
    model.subscribe(seen);
    model.set({ query: "x" });
    const search = model.run();
    const { onFile } = (calls[0] as (typeof calls)[number]).callbacks;
    onFile({ type: "file", path: "b.ts", matches: [match(1)] });
    onFile({ type: "file", path: "a.ts", matches: [match(2)] });
    onFile({ type: "file", path: "b.ts", matches: [match(9)] });
    // Not yet shown: results are batched.
    expect(model.getSnapshot().files).toEqual([]);
    vi.advanceTimersByTime(50);
    expect(model.getSnapshot().files.map((f) => [f.path, f.matches.map((m) => m.line)])).toEqual([
      ["b.ts", [1, 9]],
      ["a.ts", [2]],
    ]);
    expect(model.getSnapshot().matches).toBe(3);
    calls[0]?.finish({ limitHit: "results" });
    await search;
    expect(model.getSnapshot()).toMatchObject({ status: "done", matches: 3, limitHit: "results" });
  });

  it("shows a refused query's message, and an empty query clears everything", async () => {
    const { api, calls } = fakeApi();
    const model = new SearchModel(api, 0);
    model.set({ query: "(", regex: true });
    const search = model.run();
    calls[0]?.fail(new Error("The regular expression does not compile"));
    await search;
    expect(model.getSnapshot()).toMatchObject({ status: "error", error: "The regular expression does not compile" });
    model.set({ query: "" });
    await model.run();
    expect(model.getSnapshot()).toMatchObject({ status: "idle", files: [], error: undefined });
    expect(calls).toHaveLength(1);
  });

  it("asks the server to end a search nothing replaces (a cleared query, a page that goes)", async () => {
    const { api, calls, cancel } = fakeApi();
    const model = new SearchModel(api, 0);
    model.set({ query: "a" });
    void model.run();
    model.set({ query: "" });
    await model.run();
    expect(calls[0]?.callbacks.signal?.aborted).toBe(true);
    expect(cancel).toHaveBeenCalledOnce();
    model.set({ query: "b" });
    void model.run();
    model.dispose({ leaving: true });
    expect(cancel).toHaveBeenLastCalledWith({ leaving: true });
    model.dispose();
    expect(cancel).toHaveBeenCalledTimes(2);
  });

  it("turns typed globs into lists, and folds a file on request", () => {
    const query = toQuery({
      query: "a",
      regex: false,
      matchCase: true,
      wholeWord: false,
      include: " src, *.ts ,,",
      exclude: "",
      includeIgnored: true,
    });
    expect(query).toMatchObject({
      q: "a",
      include: ["src", "*.ts"],
      exclude: [],
      matchCase: true,
      includeIgnored: true,
    });
    const model = new SearchModel(fakeApi().api);
    model.toggle("a.ts");
    expect(model.getSnapshot().collapsed.has("a.ts")).toBe(true);
    model.toggle("a.ts");
    expect(model.getSnapshot().collapsed.has("a.ts")).toBe(false);
  });
});
