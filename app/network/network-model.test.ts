import { describe, expect, it } from "vitest";
import type { EgressLog, EgressLogEntry, NetworkPolicy, NetworkSettings } from "../../protocol/network";
import type { NetworkApi } from "../api/network";
import { NetworkModel } from "./network-model";

const entry = (id: number, change: Partial<EgressLogEntry> = {}): EgressLogEntry => ({
  id,
  at: "2026-01-01T00:00:00.000Z",
  method: "GET",
  scheme: "https",
  host: "registry.npmjs.org",
  path: "/",
  verdict: "allowed",
  status: 200,
  secrets: [],
  ...change,
});

function fakeApi(logs: EgressLog[]) {
  let settings: NetworkSettings = {
    mode: "allowlist",
    allow: ["pypi.org"],
    secrets: [],
    containerMode: "allowlist",
    openAvailable: true,
  };
  const afters: number[] = [];
  const api = {
    get: async () => settings,
    log: async (after: number) => {
      afters.push(after);
      return logs.shift() ?? { entries: [], intercepting: true };
    },
    update: async (policy: NetworkPolicy) => {
      settings = { ...settings, ...policy };
      return settings;
    },
  } as unknown as NetworkApi;
  return { api, afters };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("NetworkModel", () => {
  it("merges log pages by id, newest first, and asks only for what is new", async () => {
    const { api, afters } = fakeApi([
      { entries: [entry(1, { status: null }), entry(2, { verdict: "blocked", status: 403 })], intercepting: true },
      { entries: [entry(1, { status: 200 }), entry(3)], intercepting: true },
    ]);
    const model = new NetworkModel(api);
    const stop = model.watch();
    await flush();
    expect(model.getSnapshot().entries.map((e) => [e.id, e.status])).toEqual([
      [2, 403],
      [1, null],
    ]);
    await (model as unknown as { poll(): Promise<void> }).poll();
    stop();
    expect(model.getSnapshot().entries.map((e) => [e.id, e.status])).toEqual([
      [3, 200],
      [2, 403],
      [1, 200],
    ]);
    expect(afters).toEqual([0, 2]);
  });

  it("allows a host by adding it to the list the server has, once", async () => {
    const { api } = fakeApi([]);
    const model = new NetworkModel(api);
    model.refresh();
    await flush();
    await model.allow("registry.npmjs.org");
    await model.allow("registry.npmjs.org");
    expect(model.getSnapshot().settings?.allow).toEqual(["pypi.org", "registry.npmjs.org"]);
    await model.disallow("pypi.org");
    expect(model.getSnapshot().settings?.allow).toEqual(["registry.npmjs.org"]);
  });
});
