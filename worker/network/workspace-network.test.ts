import { describe, expect, it } from "vitest";
import { DEFAULT_ALLOW } from "../../protocol/network";
import { EgressLog } from "./egress-log";
import { type NetworkDeps, WorkspaceNetwork } from "./workspace-network";

function setup(overrides: Partial<NetworkDeps> = {}) {
  const data = new Map<string, unknown>();
  let running = false;
  let restarts = 0;
  const network = new WorkspaceNetwork({
    storage: {
      get: async <T>(key: string) => structuredClone(data.get(key)) as T | undefined,
      put: async <T>(key: string, value: T) => void data.set(key, structuredClone(value)),
    },
    running: () => running,
    openAvailable: true,
    restart: async () => {
      restarts++;
      network.startWith();
    },
    workspaceId: () => "w1",
    ...overrides,
  });
  return {
    network,
    data,
    start: () => {
      running = true;
      return network.startWith();
    },
    restarts: () => restarts,
  };
}

const get = (url: string) => ({ method: "GET", url });

describe("WorkspaceNetwork", () => {
  it("gives a new workspace the allow list of registries; one made before policies keeps the Internet", async () => {
    const fresh = setup();
    await fresh.network.initialize();
    expect(fresh.network.settings()).toMatchObject({ mode: "allowlist", allow: [...DEFAULT_ALLOW] });
    expect(fresh.start()).toEqual({ enableInternet: false, intercept: true });

    const legacy = setup();
    await legacy.network.load();
    expect(legacy.network.settings().mode).toBe("open");
    expect(legacy.start()).toEqual({ enableInternet: true, intercept: false });

    const locked = setup({ openAvailable: false });
    await locked.network.load();
    expect(locked.start()).toEqual({ enableInternet: false, intercept: true });
    expect(locked.network.verdict(get("https://registry.npmjs.org/"))).toMatchObject({ allow: false });
  });

  it("decides each request by the policy in force now", async () => {
    const { network, start } = setup();
    await network.initialize();
    start();
    expect(network.verdict(get("https://registry.npmjs.org/react"))).toMatchObject({ allow: true });
    expect(network.verdict(get("https://api.github.com/x"))).toMatchObject({ allow: true });
    const refused = network.verdict(get("https://evil.example/x"));
    expect(refused).toMatchObject({ allow: false, host: "evil.example" });
    expect(refused.allow ? "" : refused.message).toContain("evil.example is not on this workspace's allow list");
    expect(refused.allow ? "" : refused.message).toContain("PUT /api/workspaces/w1/network");
    expect(network.verdict(get("http://registry.npmjs.org:8080/"))).toMatchObject({ allow: false });

    await network.update({ mode: "allowlist", allow: ["evil.example"] }, false);
    expect(network.verdict(get("https://evil.example/x"))).toMatchObject({ allow: true });
    expect(network.verdict(get("https://registry.npmjs.org/react"))).toMatchObject({ allow: false });
    await network.update({ mode: "off", allow: ["evil.example"] }, false);
    const off = network.verdict(get("https://evil.example/x"));
    expect(off.allow ? "" : off.message).toContain("network is off");
  });

  it("logs every verdict, and how allowed ones ended", async () => {
    const { network, start } = setup();
    await network.initialize();
    start();
    const allowed = network.verdict(get("https://registry.npmjs.org/react?token=x"));
    network.verdict(get("https://nope.example/"));
    if (!allowed.allow) throw new Error("expected allowed");
    let log = network.logSince(0);
    expect(log.intercepting).toBe(true);
    expect(log.entries.map((e) => [e.host, e.verdict, e.status, e.path])).toEqual([
      ["registry.npmjs.org", "allowed", null, "/react"],
      ["nope.example", "blocked", 403, "/"],
    ]);
    network.settle(allowed.id, { status: 200, ms: 12 });
    log = network.logSince(2);
    expect(log.entries).toEqual([]);
    expect(network.logSince(0).entries[0]).toMatchObject({ status: 200, ms: 12 });
  });

  it("adds secrets to HTTPS requests to their hosts only", async () => {
    const { network, start } = setup();
    await network.initialize();
    start();
    await network.putSecret("gh", { value: "Basic abc", hosts: ["github.com"], header: "Authorization" }, 32);
    await network.putSecret("api", { value: "k", hosts: ["*.github.com"], header: "X-Key" }, 32);
    expect(network.verdict(get("https://github.com/a/b.git/info/refs"))).toMatchObject({
      headers: [{ name: "Authorization", value: "Basic abc" }],
    });
    expect(network.verdict(get("https://api.github.com/"))).toMatchObject({ headers: [{ name: "X-Key", value: "k" }] });
    expect(network.verdict(get("http://github.com/"))).toMatchObject({ allow: true, headers: [] });
    expect(network.verdict(get("https://registry.npmjs.org/"))).toMatchObject({ headers: [] });
    expect(JSON.stringify(network.settings())).not.toContain("Basic abc");
    expect(network.logSince(0).entries[0]?.secrets).toEqual(["gh"]);
    expect(await network.deleteSecret("gh")).toBe(true);
    expect(await network.deleteSecret("gh")).toBe(false);
    await expect(
      network.putSecret("third", { value: "v", hosts: ["a.com"], header: "Authorization" }, 1),
    ).rejects.toMatchObject({ code: "INVALID_SECRET" });
  });

  it("asks for a restart only to switch a running container to or from open, and restarts on confirmation", async () => {
    const { network, start, restarts } = setup();
    await network.initialize();
    // Not running: saved for the next start.
    await network.update({ mode: "open", allow: [] }, false);
    expect(start()).toEqual({ enableInternet: true, intercept: false });
    expect(network.verdict(get("https://anything.example/"))).toMatchObject({ allow: true, id: 0 });
    expect(network.logSince(0)).toEqual({ entries: [], intercepting: false });
    await expect(network.update({ mode: "allowlist", allow: ["a.com"] }, false)).rejects.toMatchObject({
      code: "RESTART_REQUIRED",
    });
    expect(network.settings().mode).toBe("open");
    const restarted = await network.update({ mode: "allowlist", allow: ["a.com"] }, true);
    expect(restarted).toMatchObject({ mode: "allowlist", containerMode: "allowlist", restarted: true });
    expect(restarts()).toBe(1);
    await network.update({ mode: "off", allow: ["a.com"] }, false);
    expect(restarts()).toBe(1);
  });

  it("refuses open where the deployment turned the Internet off", async () => {
    const { network } = setup({ openAvailable: false });
    await network.initialize();
    await expect(network.update({ mode: "open", allow: [] }, true)).rejects.toMatchObject({
      code: "INTERNET_DISABLED",
    });
  });
});

describe("EgressLog", () => {
  it("keeps the newest entries and returns those after an id, plus older ones still on their way", () => {
    const log = new EgressLog(3);
    const base = { at: "", method: "GET", scheme: "https" as const, path: "/", secrets: [] };
    const first = log.add({ ...base, host: "a", verdict: "allowed", status: null });
    for (const host of ["b", "c", "d"]) log.add({ ...base, host, verdict: "blocked", status: 403 });
    expect(log.since(0).map((e) => e.host)).toEqual(["b", "c", "d"]);
    log.settle(first, { status: 200, ms: 1 });
    const pending = log.add({ ...base, host: "e", verdict: "allowed", status: null });
    log.add({ ...base, host: "f", verdict: "blocked", status: 403 });
    expect(log.since(pending + 1).map((e) => e.host)).toEqual(["e"]);
  });
});
