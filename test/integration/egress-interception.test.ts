/**
 * Outbound interception runs locally as on Cloudflare: a workspace in the
 * allowlist mode starts with the Internet off and its outbound HTTP and HTTPS
 * handed to the Outbound entrypoint (interceptAllOutboundHttp,
 * interceptOutboundHttps("*")). Its allow list here is only *.egress.test,
 * which the test Worker answers itself (worker/testing/egress-test-handler.ts),
 * and every other target is this machine's own address: no test traffic
 * leaves the machine.
 */
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineAddress } from "../support/containers";
import { removeWhatWeMade, sh, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";
import { openTerminalSocket, type TerminalSocket } from "../support/terminal-client";

describe("outbound interception with the Internet off", () => {
  let id: string;
  let container: string;
  let term: TerminalSocket;
  let listener: Server;
  let listenerPort = 0;
  let reachedListener = 0;
  const address = machineAddress();

  /** Runs a shell line in the workspace's terminal and waits until it finished. */
  async function inTerminal(command: string): Promise<void> {
    const n = Math.floor(Math.random() * 1e6);
    term.type(`${command}; echo "done-$((${n}+1))"\r`);
    await term.waitFor(new RegExp(`done-${n + 1}`), 60_000);
  }

  beforeAll(async () => {
    listener = createServer((socket) => {
      reachedListener += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, "0.0.0.0", resolve));
    const bound = listener.address();
    listenerPort = typeof bound === "object" && bound ? bound.port : 0;

    id = await createWorkspace("egress interception");
    const policy = await ownerApi(`/api/workspaces/${id}/network`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ mode: "allowlist", allow: ["*.egress.test"] }),
    });
    expect(policy.status).toBe(200);
    container = (await wake(id)).container;
    term = await openTerminalSocket(id, "egress");
  });

  afterAll(() => {
    term?.ws.close();
    listener?.close();
    removeWhatWeMade();
  });

  it("hands HTTPS to the Worker, decrypted with the sidecar's CA (in the system store), request body and all", async () => {
    await inTerminal(`curl -sS -X POST -d hello 'https://api.egress.test/v1/echo?x=1' > /tmp/https.json 2>&1`);
    expect(JSON.parse(sh(container, "cat /tmp/https.json"))).toMatchObject({
      handledBy: "TestOutbound",
      method: "POST",
      url: "https://api.egress.test/v1/echo?x=1",
      body: "hello",
    });
  });

  it("hands plain HTTP to the handler by its Host", async () => {
    await inTerminal("curl -sS http://web.egress.test/page > /tmp/http.json 2>&1");
    expect(JSON.parse(sh(container, "cat /tmp/http.json"))).toMatchObject({
      handledBy: "TestOutbound",
      method: "GET",
      url: "http://web.egress.test/page",
    });
  });

  it("refuses a host off the list, and the container sees the Worker's 403", async () => {
    await inTerminal(`curl -sS -o /dev/null -w '%{http_code}' https://elsewhere.invalid/ > /tmp/refused.txt 2>&1`);
    expect(sh(container, "cat /tmp/refused.txt")).toBe("403");
  });

  it("ends a request to a host that never answers with the IDE's 504 saying so (issue 45)", async () => {
    // silent.egress.test takes the request and never answers; the test Worker gives up after 3 s
    // (a deployed IDE after 60 s). curl's own limit is far beyond: the answer is the IDE's.
    await inTerminal(`curl -sS --max-time 60 -w '%{http_code}' https://silent.egress.test/ > /tmp/silent.txt 2>&1`);
    // Before curl's own limit (which would print its exit message instead): the IDE answered.
    expect(sh(container, "cat /tmp/silent.txt").split("\n")).toEqual([
      "The IDE could not reach silent.egress.test: it did not answer within 3 seconds.",
      "504",
    ]);
  });

  it("answers DNS itself, whichever resolver is asked", async () => {
    await inTerminal("getent ahostsv4 api.egress.test | head -1 > /tmp/dns.txt");
    expect(sh(container, "cat /tmp/dns.txt")).toMatch(/^11\.0\.0\.1\s/);
    // Every machine that runs these tests has an address of its own besides loopback (Docker's bridge aside).
    expect(address).toBeTruthy();
    // A query sent to this machine's own address (where no DNS server answers) gets the sidecar's answer.
    const query = [
      "import socket,struct",
      "q=struct.pack('>HHHHHH',7,256,1,0,0,0)+b''.join(bytes([len(p)])+p.encode() for p in 'x.egress.test'.split('.'))+b'\\0'+struct.pack('>HH',1,1)",
      "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.settimeout(5)",
      `s.sendto(q,('${address}',53));r=s.recv(512)`,
      "print('.'.join(map(str,r[-4:])))",
    ].join(";");
    await inTerminal(`python3 -c "${query}" > /tmp/dns-other.txt 2>&1`);
    expect(sh(container, "cat /tmp/dns-other.txt")).toBe("11.0.0.1");
  });

  it("blocks every other connection: raw addresses, other ports, DNS over TCP", async () => {
    expect(address, "this machine needs a non-loopback address for this test").toBeDefined();
    // The listener answers anyone who reaches it: this machine's own processes do.
    const fromHere = await fetch(`http://${address}:${listenerPort}/`).catch(() => undefined);
    expect(fromHere).toBeUndefined(); // it closes at once, so fetch fails, but it was reached:
    expect(reachedListener).toBe(1);
    await inTerminal(
      `curl -sS -m 5 http://${address}:${listenerPort}/ > /tmp/raw.txt 2>&1; echo "rc=$?" >> /tmp/raw.txt`,
    );
    await inTerminal(
      `timeout 5 bash -c 'echo > /dev/tcp/${address}/53' > /tmp/tcp53.txt 2>&1; echo "rc=$?" >> /tmp/tcp53.txt`,
    );
    expect(sh(container, "tail -1 /tmp/raw.txt")).not.toBe("rc=0");
    expect(sh(container, "tail -1 /tmp/tcp53.txt")).not.toBe("rc=0");
    expect(reachedListener).toBe(1);
  });

  it("answers malformed requests with the IDE's own 400/405, never the runtime's error text (issue 19)", () => {
    /** Sends raw bytes to an intercepted address (11.0.0.1: redirected in the sidecar, it never leaves) and prints the answer. */
    const raw = (port: number, request: string) =>
      sh(
        container,
        `node -e 'const s=require("net").connect(${port},"11.0.0.1",()=>s.write(process.argv[1]));let d="";s.on("data",c=>d+=c);s.on("close",()=>console.log(d));s.on("error",e=>console.log("error "+e.code))' '${request}'`,
      );
    const twoHosts = raw(
      80,
      "GET / HTTP/1.1\r\nHost: web.egress.test\r\nHost: other.egress.test\r\nConnection: close\r\n\r\n",
    );
    expect(twoHosts).toMatch(/^HTTP\/1\.1 400/);
    const connect = raw(80, "CONNECT web.egress.test:443 HTTP/1.1\r\nHost: web.egress.test:443\r\n\r\n");
    expect(connect).toMatch(/^HTTP\/1\.1 405/);
    for (const answer of [twoHosts, connect]) {
      expect(answer).not.toMatch(/jsg|Invalid URL string|\.c\+\+|src\/workerd|\n\s+at /);
    }
  });
});
