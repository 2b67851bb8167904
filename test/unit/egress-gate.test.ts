/**
 * The egress gate (scripts/lib/egress-gate.mjs): the only way from a
 * workspace's namespace to workerd's egress listener, which would relay to any
 * address (issue 19). A real gate in front of a stand-in listener.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkGateRequest, startEgressGate } from "../../scripts/lib/egress-gate.mjs";
import { publicAddressCheck } from "../../scripts/local-engine/egress/address-ranges.mjs";

const token = "t".repeat(64);
const rules = { token, isAllowedTarget: publicAddressCheck(["192.0.2.2"]) };
const head = (
  target: string,
  extra: string[] = [`x-cloud-ide-egress-token: ${token}`, "X-Cloud-IDE-Egress-Port: 41000"],
) => [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`, "X-Tls-Sni: a.test", ...extra].join("\r\n");

describe("what may pass the egress gate", () => {
  it("refuses this machine, private, link-local and the bridge, in any spelling the CONNECT can carry", () => {
    for (const target of [
      "127.0.0.1:9229",
      "127.1.2.3:5173",
      "[::1]:9229",
      "[::ffff:127.0.0.1]:9229",
      "0.0.0.0:80",
      "10.1.2.3:80",
      "172.17.0.1:5173",
      "172.17.0.3:39001",
      "192.168.1.1:80",
      "169.254.169.254:80",
      "100.64.0.1:80",
      "192.0.2.2:5173",
      "[fe80::1]:80",
      "[fc00::1]:80",
    ]) {
      expect(checkGateRequest(head(target), rules), target).toMatchObject({ ok: false, status: 403 });
    }
  });

  it("refuses a CONNECT without the token, or with a name instead of an address", () => {
    expect(checkGateRequest(head("11.0.0.1:443", []), rules)).toMatchObject({ ok: false, status: 403 });
    expect(
      checkGateRequest(
        head("11.0.0.1:443", [`X-Cloud-IDE-Egress-Token: ${"x".repeat(64)}`, "X-Cloud-IDE-Egress-Port: 1"]),
        rules,
      ),
    ).toMatchObject({ ok: false, status: 403 });
    expect(checkGateRequest(head("localhost:443"), rules)).toMatchObject({ ok: false, status: 400 });
    expect(checkGateRequest("GET / HTTP/1.1\r\nHost: x", rules)).toMatchObject({ ok: false, status: 405 });
  });

  it("passes a public address on to workerd's port without the gate's own headers", () => {
    const verdict = checkGateRequest(head("11.0.0.1:443"), rules);
    expect(verdict).toMatchObject({ ok: true, egressPort: 41000 });
    if (!verdict.ok) return;
    expect(verdict.head).toBe("CONNECT 11.0.0.1:443 HTTP/1.1\r\nHost: 11.0.0.1:443\r\nX-Tls-Sni: a.test\r\n\r\n");
  });
});

describe("a running gate", () => {
  let workerd: net.Server;
  let workerdPort = 0;
  let gate: { port: number; close: () => Promise<void> };
  const received: string[] = [];

  beforeAll(async () => {
    workerd = net.createServer((socket) => {
      socket.once("data", (chunk) => {
        received.push(chunk.toString("latin1"));
        socket.end("HTTP/1.1 202 Accepted\r\n\r\nrelayed");
      });
    });
    await new Promise<void>((resolve) => workerd.listen(0, "127.0.0.1", resolve));
    workerdPort = (workerd.address() as net.AddressInfo).port;
    gate = await startEgressGate({ listenHost: "127.0.0.1", workerdHost: "127.0.0.1", token, hostAddresses: [] });
  });

  afterAll(async () => {
    await gate.close();
    workerd.close();
  });

  const ask = (lines: string[]) =>
    new Promise<string>((resolve) => {
      const socket = net.connect(gate.port, "127.0.0.1");
      let answer = "";
      socket.on("data", (chunk) => {
        answer += chunk.toString("latin1");
      });
      socket.on("close", () => resolve(answer));
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });

  it("relays the sidecar's CONNECT to workerd and refuses the app's", async () => {
    const passed = await ask([
      "CONNECT 11.0.0.1:80 HTTP/1.1",
      `X-Cloud-IDE-Egress-Token: ${token}`,
      `X-Cloud-IDE-Egress-Port: ${workerdPort}`,
    ]);
    expect(passed).toContain("202 Accepted");
    expect(received.at(-1)).toBe("CONNECT 11.0.0.1:80 HTTP/1.1\r\n\r\n");
    const count = received.length;
    expect(await ask(["CONNECT 127.0.0.1:9229 HTTP/1.1", `X-Cloud-IDE-Egress-Port: ${workerdPort}`])).toMatch(
      /^HTTP\/1.1 403/,
    );
    expect(
      await ask([
        "CONNECT 127.0.0.1:9229 HTTP/1.1",
        `X-Cloud-IDE-Egress-Token: ${token}`,
        `X-Cloud-IDE-Egress-Port: ${workerdPort}`,
      ]),
    ).toMatch(/^HTTP\/1.1 403/);
    expect(received.length).toBe(count);
  });
});
