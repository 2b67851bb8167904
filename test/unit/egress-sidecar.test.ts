/**
 * Pure parts of the local network sidecar (scripts/local-engine/egress/):
 * the firewall it writes, how it finds where a connection was going and what
 * it tells workerd about it, and how it answers DNS.
 */
import { type AddressInfo, connect as connectTcp, createServer, type Server } from "node:net";
import { connect } from "node:tls";
import dnsPacket from "dns-packet";
import { describe, expect, it } from "vitest";
import { originalDestination } from "../../scripts/local-engine/egress/conntrack.mjs";
import { isAllowedName, localAnswer, matchesDnsPattern } from "../../scripts/local-engine/egress/dns.mjs";
import { ipv4Rules, ipv6Rules } from "../../scripts/local-engine/egress/firewall.mjs";
import { connectionHints, startInterceptor, unrelayedMethod } from "../../scripts/local-engine/egress/interceptor.mjs";
import { containerAddress, parseLoopbackTarget, relayTarget } from "../../scripts/local-engine/egress/relay-target.mjs";

const state = {
  gateway: "172.17.0.1",
  bridgeCidr: "172.17.0.0/16",
  ingressPort: 39001,
  egressPort: 41000,
  internet: false,
  intercept: false,
  interceptPort: 41209,
  dnsPort: 41253,
  forwarderGid: 39053,
};

describe("the sidecar's firewall", () => {
  it("with the Internet off, lets out only loopback and the way to workerd, and answers DNS itself", () => {
    const rules = ipv4Rules(state);
    // Without a gate, workerd's egress port is open to the sidecar's own group only (issue 19).
    expect(rules).toContain("-A OUTPUT -p tcp -d 172.17.0.1/32 --dport 41000 -m owner --gid-owner 39053 -j ACCEPT");
    expect(rules).toContain("-A OUTPUT -p tcp -j REJECT --reject-with tcp-reset");
    expect(rules).toContain("-A OUTPUT -j REJECT\n");
    expect(rules).toContain("--dport 53 -m owner ! --gid-owner 39053 -j REDIRECT --to-ports 41253");
    expect(rules).not.toContain("--dports 80,443");
    expect(ipv6Rules(state)).toContain("-A OUTPUT -j REJECT");
  });

  it("keeps other containers on the bridge out in both directions, whatever the Internet setting", () => {
    for (const internet of [true, false]) {
      const rules = ipv4Rules({ ...state, internet });
      expect(rules).toContain(":INPUT DROP");
      expect(rules).toContain("-A INPUT -p tcp -s 172.17.0.1/32 --dport 39001 -j ACCEPT");
      expect(rules).toContain("-A OUTPUT -d 172.17.0.0/16 -j REJECT");
    }
  });

  it("with a gate, opens only the gate on the gateway: never workerd's egress port (issue 19)", () => {
    for (const internet of [true, false]) {
      const rules = ipv4Rules({ ...state, internet, gatePort: 45000, hostAddresses: ["127.0.0.1", "192.0.2.2"] });
      expect(rules).toContain("-A OUTPUT -p tcp -d 172.17.0.1/32 --dport 45000 -j ACCEPT");
      expect(rules).not.toContain("--dport 41000");
      // This machine's other addresses and link-local ones (metadata) are closed in every mode.
      expect(rules).toContain("-A OUTPUT -d 192.0.2.2/32 -j REJECT");
      expect(rules).toContain("-A OUTPUT -d 169.254.0.0/16 -j REJECT");
      expect(rules.indexOf("192.0.2.2/32")).toBeLessThan(rules.indexOf("COMMIT"));
    }
    expect(ipv6Rules({ ...state, internet: true, hostAddresses: ["2001:db8::2"] })).toContain(
      "-A OUTPUT -d 2001:db8::2/128 -j REJECT",
    );
  });

  it("with interception on, redirects HTTP and HTTPS to the sidecar", () => {
    expect(ipv4Rules({ ...state, intercept: true })).toContain(
      "-A OUTPUT -p tcp -m multiport --dports 80,443 -j REDIRECT --to-ports 41209",
    );
  });

  it("with the Internet on and nothing intercepted, neither blocks nor redirects", () => {
    const rules = ipv4Rules({ ...state, internet: true });
    expect(rules).not.toContain("REDIRECT");
    expect(rules).not.toContain("-A OUTPUT -j REJECT\nCOMMIT");
    expect(ipv6Rules({ ...state, internet: true })).not.toContain("REJECT");
  });
});

describe("finding a redirected connection's destination", () => {
  const table = [
    "ipv4     2 tcp      6 431999 ESTABLISHED src=172.17.0.3 dst=11.0.0.1 sport=48490 dport=443 src=127.0.0.1 dst=172.17.0.3 sport=41209 dport=48490 [ASSURED] mark=0 zone=0 use=2",
    "ipv4     2 udp      17 29 src=172.17.0.3 dst=1.1.1.1 sport=50111 dport=53 [UNREPLIED] src=127.0.0.1 dst=172.17.0.3 sport=41253 dport=50111 mark=0 zone=0 use=2",
  ].join("\n");

  it("reads the original direction of the client's entry", () => {
    expect(originalDestination(table, "tcp", { address: "172.17.0.3", port: 48490 })).toEqual({
      address: "11.0.0.1",
      port: 443,
    });
    expect(originalDestination(table, "udp", { address: "172.17.0.3", port: 50111 })).toEqual({
      address: "1.1.1.1",
      port: 53,
    });
  });

  it("finds nothing for a connection that was not redirected", () => {
    expect(originalDestination(table, "tcp", { address: "172.17.0.3", port: 1 })).toBeUndefined();
    expect(originalDestination(table, "udp", { address: "172.17.0.3", port: 48490 })).toBeUndefined();
  });
});

/** The first bytes a real TLS client sends for `servername`. */
function clientHello(servername: string): Promise<Buffer> {
  return new Promise((resolve) => {
    const server = createServer((socket) => {
      socket.once("data", (chunk: Buffer) => {
        resolve(chunk);
        socket.destroy();
        server.close();
      });
    }).listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      connect({ host: "127.0.0.1", port, servername }).on("error", () => {});
    });
  });
}

describe("what the sidecar tells workerd about a connection", () => {
  it("reads the server name of a TLS ClientHello, once the whole record is there", async () => {
    const hello = await clientHello("api.egress.test");
    expect(connectionHints(hello, 443)).toEqual({ done: true, sni: "api.egress.test" });
    expect(connectionHints(hello.subarray(0, 20), 443)).toEqual({ done: false });
  });

  it("reads the Host of a plain HTTP request on port 80 only", () => {
    const request = Buffer.from("GET /x HTTP/1.1\r\nHost: web.egress.test\r\nAccept: */*\r\n\r\n");
    expect(connectionHints(request, 80)).toEqual({ done: true, hostname: "web.egress.test" });
    expect(connectionHints(request, 8080)).toEqual({ done: true });
    expect(connectionHints(Buffer.from("GET /x HTTP/1.1\r\nHost: w"), 80)).toEqual({ done: false });
    expect(connectionHints(Buffer.from("SSH-2.0-OpenSSH\r\n"), 80)).toEqual({ done: true });
  });

  it("marks a Host that gives no URL, and knows the methods a Worker cannot take (issue 19)", () => {
    const twice = Buffer.from("GET / HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n");
    expect(connectionHints(twice, 80)).toMatchObject({ done: true, malformed: true });
    const ipLike = Buffer.from("GET / HTTP/1.1\r\nHost: 8099-a-b.127.0.0.1:80\r\n\r\n");
    expect(connectionHints(ipLike, 80)).toMatchObject({ done: true, malformed: true });
    expect(connectionHints(Buffer.from("GET / HTTP/1.1\r\nHost: 127.1\r\n\r\n"), 80)).not.toHaveProperty("malformed");
    const connect = Buffer.from("CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n");
    expect(unrelayedMethod(connect, { hostname: "a.test:443" })).toBe("CONNECT");
    expect(unrelayedMethod(Buffer.from("GET / HTTP/1.1\r\n"), { hostname: "a.test" })).toBeUndefined();
  });
});

describe("a connection whose egress never answers (issue 45)", () => {
  const listen = (server: Server) =>
    new Promise<number>((resolve) =>
      server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
    );

  /** The interceptor in front of an egress that takes the CONNECT and never says a word. */
  async function silentEgress() {
    const held: import("node:net").Socket[] = [];
    const egress = createServer((socket) => held.push(socket));
    const egressPort = await listen(egress);
    const logged: string[] = [];
    const interceptor = await startInterceptor({
      port: 0,
      egress: () => ({ host: "127.0.0.1", port: egressPort, headers: [] }),
      originalDestination: async () => ({ address: "203.0.113.9", port: 80 }),
      mintLeaf: async () => {
        throw new Error("no certificate is minted for a connection that never got its answer");
      },
      log: (message) => logged.push(message),
      connectAnswerTimeoutMs: 300,
    });
    const port = (interceptor.address() as AddressInfo).port;
    const close = () => {
      for (const socket of held) socket.destroy();
      egress.close();
      interceptor.close();
    };
    return { port, logged, close };
  }

  /** Everything the client receives until the connection ends. */
  function exchange(port: number, bytes: Buffer | string) {
    return new Promise<string>((resolve, reject) => {
      const socket = connectTcp({ host: "127.0.0.1", port }, () => socket.write(bytes));
      let received = "";
      socket.on("data", (chunk) => {
        received += chunk.toString("latin1");
      });
      socket.on("close", () => resolve(received));
      socket.on("error", () => resolve(received));
      setTimeout(() => reject(new Error("the connection was left open")), 10_000);
    });
  }

  it("answers plain HTTP with the IDE's 504 naming the host, instead of waiting forever", async () => {
    const { port, logged, close } = await silentEgress();
    try {
      const answer = await exchange(port, "GET / HTTP/1.1\r\nHost: slow.example\r\n\r\n");
      expect(answer).toMatch(/^HTTP\/1\.1 504 Gateway Timeout\r\n/);
      expect(answer).toContain("the request to slow.example could not be handed on");
      expect(logged.join("\n")).toContain("did not answer within");
    } finally {
      close();
    }
  });

  it("ends a TLS connection (nothing can be said before the handshake) and logs why", async () => {
    const { port, logged, close } = await silentEgress();
    try {
      const answer = await exchange(port, await clientHello("slow.example"));
      expect(answer).toBe("");
      expect(logged.join("\n")).toMatch(/slow\.example.*did not answer within/);
    } finally {
      close();
    }
  });
});

describe("the sidecar's DNS", () => {
  it("matches allow patterns like Go's path.Match: * stays within a label", () => {
    expect(matchesDnsPattern("*", "anything.example")).toBe(true);
    expect(matchesDnsPattern("*.b.test", "a.b.test")).toBe(true);
    expect(matchesDnsPattern("*.b.test", "x.a.b.test")).toBe(false);
    expect(matchesDnsPattern("a.test", "A.Test.")).toBe(true);
    expect(isAllowedName(["a.test", "*.b.test"], "c.test")).toBe(false);
    expect(isAllowedName([], "a.test")).toBe(false);
  });

  it("answers an allowed name with the placeholder addresses and any other with NXDOMAIN", () => {
    const query = dnsPacket.decode(
      dnsPacket.encode({
        type: "query",
        id: 7,
        flags: dnsPacket.RECURSION_DESIRED,
        questions: [{ type: "A", name: "api.egress.test" }],
      }),
    );
    const allowed = dnsPacket.decode(localAnswer(query, true));
    expect(allowed.id).toBe(7);
    expect((allowed.flags ?? 0) & 0xf).toBe(0); // NOERROR
    expect(allowed.answers).toMatchObject([{ type: "A", name: "api.egress.test", data: "11.0.0.1" }]);
    const refused = dnsPacket.decode(localAnswer(query, false));
    expect((refused.flags ?? 0) & 0xf).toBe(3); // NXDOMAIN
    expect(refused.answers).toEqual([]);
  });
});

describe("the CONNECT relay's targets", () => {
  it("are ports named as workerd names them (a loopback address and a port)", () => {
    expect(parseLoopbackTarget("127.0.0.1:8080")).toEqual({ host: "127.0.0.1", port: 8080 });
    expect(parseLoopbackTarget("[::1]:5173")).toEqual({ host: "::1", port: 5173 });
    for (const refused of ["172.17.0.5:8080", "10.0.0.1:22", "localhost:80", "127.0.0.1:0", "127.0.0.1:70000", ""]) {
      expect(parseLoopbackTarget(refused), refused).toBeUndefined();
    }
  });
});

describe("where the CONNECT relay connects", () => {
  const lo = {
    address: "127.0.0.1",
    netmask: "255.0.0.0",
    family: "IPv4",
    mac: "00:00:00:00:00:00",
    internal: true,
    cidr: "127.0.0.1/8",
  } as const;
  const eth0 = {
    address: "172.17.0.5",
    netmask: "255.255.0.0",
    family: "IPv4",
    mac: "02:42:ac:11:00:05",
    internal: false,
    cidr: "172.17.0.5/16",
  } as const;

  it("is the port on the container's own address, never its loopback (as getTcpPort() on Cloudflare)", () => {
    const address = containerAddress({ lo: [lo], eth0: [eth0] });
    expect(address).toBe("172.17.0.5");
    expect(relayTarget("127.0.0.1:5173", address)).toEqual({ host: "172.17.0.5", port: 5173 });
    expect(relayTarget("[::1]:5173", address)).toEqual({ host: "172.17.0.5", port: 5173 });
  });

  it("is nothing without an address of the container's own, or for a target workerd never names", () => {
    expect(containerAddress({ lo: [lo] })).toBeUndefined();
    expect(relayTarget("127.0.0.1:5173", undefined)).toBeUndefined();
    expect(relayTarget("172.17.0.9:5173", "172.17.0.5")).toBeUndefined();
  });
});
