/**
 * What a workspace reaches on the local platform (issue 19, finding 1): from
 * inside a workspace (exec in its container, as root, as a terminal would),
 * in every network mode and after every switch between them, nothing on this
 * machine answers: not the IDE's port, not its hot-reload port, not the
 * Worker's inspector, not a server on this machine's loopback or on all its
 * addresses, not another workspace's sidecar or its control API, neither
 * directly, nor through workerd's egress listener (which relays a CONNECT to
 * any address), nor through the egress gate without its token. Every target
 * is this machine's own address: no probe leaves the machine.
 */
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { docker, machineAddress } from "../support/containers";
import { removeWhatWeMade, sh, waitFor, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";

/** A server that marks each connection it gets and answers with a word the probes look for. */
async function canary(host: string): Promise<{ server: Server; port: number; hits: () => number }> {
  let hits = 0;
  const server = createServer((socket) => {
    hits += 1;
    socket.on("error", () => socket.destroy());
    socket.end("HTTP/1.0 200 OK\r\n\r\ncanary-reached\n");
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  return { server, port: typeof address === "object" && address ? address.port : 0, hits: () => hits };
}

/**
 * Runs in the container: opens each probe's TCP connection, sends its bytes,
 * reports what came back. `gid`: the probes first take the sidecar's group
 * (the app is root and may), as a probe that read the sidecar's source would.
 */
const PROBE = `
import net from "node:net";
const [, , json, gid] = process.argv;
if (gid) process.setgid(Number(gid));
const probe = ({ name, host, port, send }) => new Promise((resolve) => {
  const socket = net.connect({ host, port });
  let data = "";
  let connected = false;
  let settled = false;
  const done = (outcome) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    socket.destroy();
    resolve({ name, connected, outcome, data: data.slice(0, 400) });
  };
  const timer = setTimeout(() => done("timeout"), 4000);
  socket.on("connect", () => { connected = true; socket.write(send); });
  socket.on("data", (chunk) => { data += chunk.toString("latin1"); });
  socket.on("error", (error) => done(error.code ?? error.message));
  socket.on("close", () => done("closed"));
});
console.log(JSON.stringify(await Promise.all(JSON.parse(json).map(probe))));
`;

interface Probe {
  name: string;
  host: string;
  port: number;
  send: string;
  /** Only the connection itself counts (a direct port): it must fail. Otherwise no inner answer may come. */
  direct: boolean;
}

interface ProbeResult {
  name: string;
  connected: boolean;
  outcome: string;
  data: string;
}

/** An answer from behind a CONNECT: a status for the CONNECT, then the target's own answer. */
const INNER_ANSWER = /HTTP\/1\.[01] 2\d\d[^\n]*\r?\n[\s\S]*(HTTP\/1\.[01] \d{3}|canary-reached|"webSocketDebuggerUrl")/;

function reached(probe: Probe, result: ProbeResult): boolean {
  if (probe.direct) return result.connected;
  return INNER_ANSWER.test(result.data) || result.data.includes("canary-reached");
}

describe("what a workspace reaches on this machine, in every network mode (issue 19)", () => {
  let a: string;
  let aId: string;
  let b: string;
  const canaries: Awaited<ReturnType<typeof canary>>[] = [];
  let loopbackCanary: Awaited<ReturnType<typeof canary>>;
  let everywhereCanary: Awaited<ReturnType<typeof canary>>;
  const gateway = docker("network", "inspect", "bridge", "--format", "{{(index .IPAM.Config 0).Gateway}}");
  const machine = machineAddress();

  async function setPolicy(mode: string, restart: boolean): Promise<void> {
    const response = await ownerApi(`/api/workspaces/${aId}/network`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ mode, allow: mode === "allowlist" ? ["*.egress.test"] : [], restart }),
    });
    expect(response.status, await response.text()).toBe(200);
  }

  /** The probes for A as things are now (ports and addresses are read again after each restart). */
  function probes(): Probe[] {
    const sidecar = JSON.parse(docker("inspect", "--format", "{{json .Config}}", `${a}-proxy`)) as {
      Cmd: string[];
      Env: string[] | null;
    };
    const egressPort = Number(sidecar.Cmd[sidecar.Cmd.indexOf("--http-egress-port") + 1]);
    const gatePort = Number(
      (sidecar.Env ?? []).find((e) => e.startsWith("CLOUD_IDE_EGRESS_GATE="))?.split("=")[1] ?? 0,
    );
    const bAddress = docker("inspect", "--format", "{{.NetworkSettings.IPAddress}}", `${b}-proxy`);
    const bRelayPort = Number(docker("port", `${b}-proxy`, "39001/tcp").split("\n")[0]?.split(":").pop());
    const hostServices: [string, number][] = [
      ["the IDE", inject("port")],
      ["the IDE's hot reload", inject("hmrPort")],
      ["the Worker's inspector", inject("inspectorPort")],
      ["a loopback server", loopbackCanary.port],
      ["a server on every address", everywhereCanary.port],
      ["B's relay and control API", bRelayPort],
    ];
    const get = "GET /json/list HTTP/1.0\r\nHost: localhost\r\n\r\n";
    const list: Probe[] = [];
    // Directly: the gateway and this machine's own address, every port of interest, and B's sidecar.
    for (const [what, port] of [...hostServices, ["workerd's egress listener", egressPort] as [string, number]]) {
      list.push({ name: `${what} on the gateway`, host: gateway, port, send: get, direct: true });
      list.push({ name: `${what} on ${machine}`, host: machine, port, send: get, direct: true });
    }
    list.push({ name: "B's sidecar on the bridge", host: bAddress, port: 39001, send: get, direct: true });
    // Through workerd's egress listener, and through the gate with no token or a wrong one.
    // This engine has a gateway this machine listens on, so the engine proxy runs the gate there.
    expect(gatePort, "the sidecar names no egress gate").toBeGreaterThan(0);
    const ways: [string, number, string][] = [
      ["workerd's egress listener", egressPort, ""],
      ["the gate, no token", gatePort, `X-Cloud-IDE-Egress-Port: ${egressPort}\r\n`],
      [
        "the gate, a wrong token",
        gatePort,
        `X-Cloud-IDE-Egress-Token: ${"0".repeat(64)}\r\nX-Cloud-IDE-Egress-Port: ${egressPort}\r\n`,
      ],
    ];
    for (const [way, port, headers] of ways) {
      const targets: [string, string][] = [
        ...hostServices.flatMap(([what, p]): [string, string][] => [
          [what, `127.0.0.1:${p}`],
          [`${what} (IPv6)`, `[::1]:${p}`],
        ]),
        ["a server on every address", `${machine}:${everywhereCanary.port}`],
        ["B's sidecar on the bridge", `${bAddress}:39001`],
      ];
      for (const [what, target] of targets) {
        const inner = what.startsWith("B's relay")
          ? 'PUT /egress HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"internet":{"enabled":true}}\n'
          : get;
        list.push({
          name: `${what} (${target}) through ${way}`,
          host: gateway,
          port,
          send: `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${headers}\r\n${inner}`,
          direct: false,
        });
      }
    }
    return list;
  }

  function runProbes(list: Probe[], gid?: number): ProbeResult[] {
    const args = ["exec", a, "node", "/tmp/reach-probe.mjs", JSON.stringify(list)];
    if (gid !== undefined) args.push(String(gid));
    return JSON.parse(docker(...args)) as ProbeResult[];
  }

  /** Every probe, as the app and as the sidecar's group: none reaches anything. */
  function expectNothingReached(mode: string): void {
    docker("exec", "-i", a, "sh", "-c", `cat > /tmp/reach-probe.mjs <<'EOF'\n${PROBE}\nEOF`);
    const list = probes();
    for (const gid of [undefined, 39053]) {
      const results = runProbes(list, gid);
      const leaks = list
        .map((probe, i) => ({ probe, result: results[i] as ProbeResult }))
        .filter(({ probe, result }) => reached(probe, result))
        .map(({ probe, result }) => `${probe.name}: ${result.outcome} ${JSON.stringify(result.data.slice(0, 120))}`);
      expect(leaks, `${mode}${gid ? ", as the sidecar's group" : ""}`).toEqual([]);
    }
    for (const c of canaries) expect(c.hits(), `${mode}: a canary on this machine was reached`).toBe(0);
  }

  beforeAll(async () => {
    loopbackCanary = await canary("127.0.0.1");
    everywhereCanary = await canary("0.0.0.0");
    canaries.push(loopbackCanary, everywhereCanary);
    const [idA, idB] = await Promise.all([createWorkspace("reach A", "empty"), createWorkspace("reach B", "empty")]);
    aId = idA as string;
    // A starts open (set before its first start: no restart needed).
    await setPolicy("open", false);
    a = (await wake(aId)).container;
    b = (await wake(idB as string)).container;
    // B serves on its loopback only: its relay would hand that out.
    docker("exec", "-d", b, "python3", "-m", "http.server", "--bind", "127.0.0.1", "7101");
    await waitFor("B's server", () => {
      try {
        sh(b, "curl -sf -o /dev/null http://127.0.0.1:7101/");
        return true;
      } catch {
        return undefined;
      }
    });
  });

  afterAll(() => {
    for (const c of canaries) c.server.close();
    removeWhatWeMade();
  });

  it("open: the Internet is on, this machine is not", () => {
    // A's own loopback works: the failures are the isolation.
    expect(
      sh(
        a,
        "python3 -m http.server --bind 127.0.0.1 7103 >/dev/null 2>&1 & sleep 1; curl -sf -o /dev/null -w '%{http_code}' http://127.0.0.1:7103/",
      ),
    ).toBe("200");
    expectNothingReached("open");
  });

  it("open -> allowlist", async () => {
    await setPolicy("allowlist", true);
    expectNothingReached("allowlist, after open");
  });

  it("allowlist -> off", async () => {
    await setPolicy("off", false);
    expectNothingReached("off, after allowlist");
  });

  it("off -> open: and the Worker does not fetch this machine for a request the container hands over", async () => {
    await setPolicy("open", true);
    expectNothingReached("open, after off");
    // The sidecar still hands port 80 to workerd (workerd keeps a Durable
    // Object's intercepts locally, from the earlier modes), so a request naming
    // this machine reaches the Worker: it must refuse it. (11.0.0.1 never
    // leaves: the redirect is checked first.)
    const nat = docker("exec", `${a}-proxy`, "iptables-save", "-t", "nat");
    expect(nat).toMatch(/--dports 80,443 -j REDIRECT/);
    const answer = sh(
      a,
      `curl -s -m 10 -H 'Host: 127.0.0.1:${inject("port")}' http://11.0.0.1/api/health; echo; curl -s -m 10 -H 'Host: 127.0.0.1:${inject("inspectorPort")}' http://11.0.0.1/json/list`,
    );
    expect(answer).not.toMatch(/webSocketDebuggerUrl|"ok"/);
    expect(answer).toMatch(/Blocked by the IDE/);
  });

  it("allowlist: a request naming this machine by address is refused by the Worker in any spelling", async () => {
    await setPolicy("allowlist", true);
    expectNothingReached("allowlist, after open");
    for (const host of ["127.0.0.1", "0x7f.0.0.1", "2130706433", "127.1"]) {
      // curl's own error and exit code are part of the answer, so a failure says how the request ended.
      // A connection that fails outright (once, in a CI rehearsal, seconds after the mode's restart) is
      // tried again: what is tested is the answer a request gets, and any answer but the refusal fails.
      const answer = sh(
        a,
        `curl -sS -m 20 --retry 2 --retry-all-errors --retry-delay 1 -H 'Host: ${host}:${inject("port")}' http://11.0.0.1/api/health 2>&1 || echo "curl exit $?"`,
      );
      expect(answer, host).toMatch(/Blocked by the IDE/);
    }
  });
});
