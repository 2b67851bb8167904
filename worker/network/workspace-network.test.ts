import { describe, expect, it } from "vitest";
import { DEFAULT_ALLOW } from "../../protocol/network";
import { EgressLog } from "./egress-log";
import { decide } from "./egress-rules";
import { type NetworkDeps, WorkspaceNetwork } from "./workspace-network";

function setup(overrides: Partial<NetworkDeps> = {}) {
  const data = new Map<string, unknown>();
  let running = false;
  let restarts = 0;
  const registered: number[] = [];
  const network: WorkspaceNetwork = new WorkspaceNetwork({
    storage: {
      get: async <T>(key: string) => structuredClone(data.get(key)) as T | undefined,
      put: async <T>(key: string, value: T) => void data.set(key, structuredClone(value)),
    },
    hasContainer: () => running,
    openAvailable: true,
    restart: async () => {
      restarts++;
      network.startWith();
    },
    workspaceId: () => "w1",
    changed: async () => {
      if (network.intercepting) registered.push(network.version);
    },
    ...overrides,
  });
  return {
    network,
    start: () => {
      running = true;
      return network.startWith();
    },
    restarts: () => restarts,
    registered,
  };
}

/** The entrypoint's decision on a URL under the workspace's rules now. */
const decideNow = (network: WorkspaceNetwork, url: string) => decide(network.rules(), new URL(url));
const message = (decision: ReturnType<typeof decide>) => (decision.allow ? "" : decision.message);

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
    expect(decideNow(locked.network, "https://registry.npmjs.org/")).toMatchObject({ allow: false });
  });

  it("decides each request by the rules in force, and a change gets a new version registered at once", async () => {
    const { network, start, registered } = setup();
    await network.initialize();
    start();
    expect(decideNow(network, "https://registry.npmjs.org/react")).toMatchObject({ allow: true, logged: true });
    expect(decideNow(network, "https://api.github.com/x")).toMatchObject({ allow: true });
    const refused = decideNow(network, "https://evil.example/x");
    expect(message(refused)).toContain("evil.example is not on this workspace's allow list");
    expect(message(refused)).toContain("PUT /api/workspaces/w1/network");
    expect(message(decideNow(network, "http://registry.npmjs.org:8080/"))).toContain("ports 80 and 443 only");

    const before = network.version;
    await network.update({ mode: "allowlist", allow: ["evil.example"] }, false);
    expect(network.version).toBe(before + 1);
    expect(registered).toEqual([before + 1]);
    expect(decideNow(network, "https://evil.example/x")).toMatchObject({ allow: true });
    expect(decideNow(network, "https://registry.npmjs.org/react")).toMatchObject({ allow: false });
    await network.update({ mode: "off", allow: ["evil.example"] }, false);
    expect(message(decideNow(network, "https://evil.example/x"))).toContain("network is off");
    expect(registered).toEqual([before + 1, before + 2]);
  });

  it("keeps the log the entrypoint reports, newest last, and says whether requests are intercepted", async () => {
    const { network, start } = setup();
    await network.initialize();
    start();
    const base = { at: "", method: "GET", scheme: "https" as const, path: "/", secrets: [] };
    network.record({ ...base, host: "registry.npmjs.org", verdict: "allowed", status: 200, ms: 12 });
    network.record({ ...base, host: "nope.example", verdict: "blocked", status: 403 });
    const log = network.logSince(0);
    expect(log.intercepting).toBe(true);
    expect(log.entries.map((e) => [e.id, e.host, e.verdict, e.status])).toEqual([
      [1, "registry.npmjs.org", "allowed", 200],
      [2, "nope.example", "blocked", 403],
    ]);
    expect(network.logSince(2).entries).toEqual([]);
  });

  it("adds secrets to HTTPS requests to their hosts only, and never shows their values", async () => {
    const { network, start, registered } = setup();
    await network.initialize();
    start();
    await network.putSecret("gh", { value: "Basic abc", hosts: ["github.com"], header: "Authorization" }, 32);
    await network.putSecret("api", { value: "k", hosts: ["*.github.com"], header: "X-Key" }, 32);
    expect(registered).toHaveLength(2);
    expect(decideNow(network, "https://github.com/a/b.git/info/refs")).toMatchObject({
      headers: [{ name: "Authorization", value: "Basic abc" }],
      secrets: ["gh"],
    });
    expect(decideNow(network, "https://api.github.com/")).toMatchObject({ headers: [{ name: "X-Key", value: "k" }] });
    expect(decideNow(network, "http://github.com/")).toMatchObject({ allow: true, headers: [] });
    expect(decideNow(network, "https://registry.npmjs.org/")).toMatchObject({ headers: [] });
    expect(JSON.stringify(network.settings())).not.toContain("Basic abc");
    expect(await network.deleteSecret("gh")).toBe(true);
    expect(await network.deleteSecret("gh")).toBe(false);
    expect(decideNow(network, "https://github.com/")).toMatchObject({ headers: [] });
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
    expect(decideNow(network, "https://anything.example/")).toMatchObject({ allow: true, logged: false });
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
  it("keeps the newest entries and returns those after an id", () => {
    const log = new EgressLog(3);
    const base = { at: "", method: "GET", scheme: "https" as const, path: "/", secrets: [] };
    for (const host of ["a", "b", "c", "d"]) log.add({ ...base, host, verdict: "blocked", status: 403 });
    expect(log.since(0).map((e) => e.host)).toEqual(["b", "c", "d"]);
    expect(log.since(3).map((e) => e.host)).toEqual(["d"]);
  });
});
