/**
 * Locally, workspaces on one machine are kept apart as containers on
 * Cloudflare are (issue 11, finding 7): from a terminal in workspace A,
 * workspace B's servers answer neither on B's bridge address nor through B's
 * CONNECT relay; the relay is published on this machine's loopback only and
 * reaches a container's ports the way getTcpPort() does on Cloudflare (on
 * the container's own address, never its loopback: issue 43); the app cannot change its own
 * sidecar's egress settings; and each container has the memory, CPU and
 * process limits of the sandbox's instance type.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configuredInstanceType, dockerLimits } from "../../scripts/lib/instance-types.mjs";
import { docker } from "../support/containers";
import { removeWhatWeMade, sh, waitFor, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";
import { openTerminalSocket, type TerminalSocket } from "../support/terminal-client";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Runs a command in a terminal and returns its exit status. */
async function exitStatus(term: TerminalSocket, command: string): Promise<number> {
  const n = Math.floor(Math.random() * 1e6);
  term.type(`${command} >/dev/null 2>&1; echo "status-$((${n}+1))=$?"\r`);
  const output = await term.waitFor(new RegExp(`status-${n + 1}=(\\d+)`), 30_000);
  return Number(new RegExp(`status-${n + 1}=(\\d+)`).exec(output)?.[1]);
}

/** A CONNECT through a sidecar's relay from this machine (where workerd is): the status it answers. */
function relayStatus(hostPort: number, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port: hostPort,
      method: "CONNECT",
      path: target,
      headers: { "X-Dst-Addr": target },
    });
    req.on("connect", (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on("response", (res) => resolve(res.statusCode ?? 0));
    req.on("error", reject);
    req.end();
  });
}

describe("workspaces on one machine", () => {
  let a: string;
  let b: string;
  let bAddress: string;
  let bRelay: { ip: string; port: number };
  let gateway: string;
  let term: TerminalSocket;

  beforeAll(async () => {
    const [idA, idB] = await Promise.all([createWorkspace("isolation A"), createWorkspace("isolation B")]);
    a = (await wake(idA as string)).container;
    b = (await wake(idB as string)).container;
    bAddress = docker("inspect", "--format", "{{.NetworkSettings.IPAddress}}", `${b}-proxy`);
    const [ip, port] =
      docker("port", `${b}-proxy`, "39001/tcp")
        .split("\n")[0]
        ?.split(/:(?=\d+$)/) ?? [];
    bRelay = { ip: ip ?? "", port: Number(port) };
    gateway = docker("network", "inspect", "bridge", "--format", "{{(index .IPAM.Config 0).Gateway}}");
    // B serves on its loopback only (7101), on every interface (7102), and on
    // its loopback only below 1024 (999), which the resident agent never forwards.
    docker("exec", "-d", b, "python3", "-m", "http.server", "--bind", "127.0.0.1", "7101");
    docker("exec", "-d", b, "python3", "-m", "http.server", "--bind", "0.0.0.0", "7102");
    docker("exec", "-d", b, "python3", "-m", "http.server", "--bind", "127.0.0.1", "999");
    await waitFor("B's servers", () => {
      try {
        sh(
          b,
          "curl -sf -o /dev/null http://127.0.0.1:7101/ && curl -sf -o /dev/null http://127.0.0.1:7102/ && curl -sf -o /dev/null http://127.0.0.1:999/",
        );
        return true;
      } catch {
        return undefined;
      }
    });
    term = await openTerminalSocket(idA as string, "isolation");
  });

  afterAll(() => {
    term?.ws.close();
    removeWhatWeMade();
  });

  it("from a terminal in A, B answers neither on its bridge address nor through its relay", async () => {
    // A's own tools and loopback work: the failures below are the isolation.
    expect(
      await exitStatus(
        term,
        "python3 -m http.server --bind 127.0.0.1 7103 & sleep 1; curl -sf -m 5 http://127.0.0.1:7103/",
      ),
    ).toBe(0);
    expect(await exitStatus(term, `curl -sf -m 5 http://${bAddress}:7102/`)).not.toBe(0);
    expect(await exitStatus(term, `curl -sf -m 5 http://${bAddress}:39001/ca`)).not.toBe(0);
    const throughRelay = `curl -sf -m 5 -p -x http://${gateway}:${bRelay.port} --proxy-header "X-Dst-Addr: 127.0.0.1:7101" http://127.0.0.1:7101/`;
    expect(await exitStatus(term, throughRelay)).not.toBe(0);
  });

  it("publishes each relay on this machine's loopback only, reaching a port on the container's own address only", async () => {
    expect(bRelay.ip).toBe("127.0.0.1");
    expect(await relayStatus(bRelay.port, "127.0.0.1:7102")).toBe(200);
    // The container's loopback is out of reach, as for getTcpPort() on Cloudflare: 999 is never forwarded.
    expect(await relayStatus(bRelay.port, "127.0.0.1:999")).toBe(400);
    // 7101 listens on loopback only, and answers through the resident agent's forward.
    await waitFor("7101 forwarded", async () =>
      (await relayStatus(bRelay.port, "127.0.0.1:7101")) === 200 ? true : undefined,
    );
    expect(await relayStatus(bRelay.port, `${bAddress}:7102`)).toBe(403);
    expect(await relayStatus(bRelay.port, `${gateway}:${bRelay.port}`)).toBe(403);
  });

  it("does not let the app change its own sidecar's egress settings", async () => {
    const put = `curl -sf -m 5 -X PUT -d '{"internet":{"enabled":true}}' http://127.0.0.1:39001/egress`;
    expect(await exitStatus(term, put)).not.toBe(0);
    expect(await exitStatus(term, "curl -sf -m 5 http://127.0.0.1:39001/ca")).not.toBe(0);
  });

  it("removes a deleted workspace's container and its network sidecar within seconds (issue 19)", async () => {
    const id = await createWorkspace("isolation deleted");
    const { container } = await wake(id);
    const exists = (name: string) => docker("ps", "-aq", "--filter", `name=^/${name}$`) !== "";
    expect(exists(`${container}-proxy`)).toBe(true);
    const response = await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" });
    expect(response.status).toBeLessThan(300);
    await waitFor(
      "the container and its sidecar to go",
      () => !exists(container) && !exists(`${container}-proxy`),
      30_000,
    );
  });

  it("removes a workspace's network sidecar within seconds when it is deleted while asleep (issue 19)", async () => {
    const id = await createWorkspace("isolation deleted asleep");
    const { container } = await wake(id);
    const exists = (name: string) => docker("ps", "-aq", "--filter", `name=^/${name}$`) !== "";
    expect((await ownerApi(`/api/workspaces/${id}/stop`, { method: "POST" })).status).toBeLessThan(300);
    await waitFor("the container to stop", () => !exists(container), 60_000);
    // Asleep, workerd keeps the sidecar for the next wake.
    expect(exists(`${container}-proxy`)).toBe(true);
    const response = await ownerApi(`/api/workspaces/${id}`, { method: "DELETE" });
    expect(response.status).toBeLessThan(300);
    await waitFor("the sidecar to go", () => !exists(`${container}-proxy`), 30_000);
  });

  it("gives each container the memory, CPU and process limits of the sandbox's instance type", () => {
    const limits = dockerLimits(configuredInstanceType(ROOT));
    const applied = JSON.parse(docker("inspect", "--format", "{{json .HostConfig}}", a)) as Record<string, number>;
    expect(applied).toMatchObject(limits);
    // Seen from inside, as the kernel enforces it (cgroup v1 or v2).
    const memory = sh(
      a,
      "cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max",
    );
    expect(Number(memory)).toBe(limits.Memory);
  });
});
