import { describe, expect, it } from "vitest";
import { engineAddress, rewriteCreate, rewritePath, upgradeAnswer } from "../../scripts/lib/engine-proxy.mjs";
import { configuredInstanceType, dockerLimits } from "../../scripts/lib/instance-types.mjs";

const limits = dockerLimits("standard-1");

describe("what the engine proxy changes in the containers workerd creates", () => {
  it("binds the network sidecar's published ports to loopback", () => {
    const sidecar = {
      Image: "cloud-ide-egress:abc",
      Cmd: ["--http-egress-port", "41000", "--http-ingress-address", "0.0.0.0:39001"],
      ExposedPorts: { "39001/tcp": {} },
      HostConfig: { PublishAllPorts: true, NetworkMode: "bridge", CapAdd: ["NET_ADMIN"] },
    };
    const sent = rewriteCreate("workerd-ide-Workspace-1-proxy", sidecar, limits);
    expect(sent.HostConfig).toEqual({
      ...sidecar.HostConfig,
      PortBindings: { "39001/tcp": [{ HostIp: "127.0.0.1", HostPort: "" }] },
      Sysctls: { "net.ipv6.conf.lo.disable_ipv6": "0" },
    });
    expect(sent.HostConfig.Memory).toBeUndefined();
  });

  it("gives an app container the instance type's memory, CPU and process limits", () => {
    const app = {
      Image: "cloudflare-dev/sandbox:1",
      HostConfig: { NetworkMode: "container:workerd-ide-Workspace-1-proxy" },
    };
    expect(rewriteCreate("workerd-ide-Workspace-1", app, limits).HostConfig).toEqual({
      NetworkMode: "container:workerd-ide-Workspace-1-proxy",
      Memory: 4096 * 1024 * 1024,
      MemorySwap: 4096 * 1024 * 1024,
      NanoCpus: 500_000_000,
      PidsLimit: 4096,
    });
  });

  it("gives an app container the limits of the machine size its start names", () => {
    const app = {
      Image: "cloudflare-dev/sandbox:1",
      Env: ["PATH=/usr/bin", "CLOUD_IDE_MACHINE=standard-3"],
      HostConfig: { NetworkMode: "container:workerd-ide-Workspace-1-proxy" },
    };
    expect(rewriteCreate("workerd-ide-Workspace-1", app, limits).HostConfig).toMatchObject({
      Memory: 8192 * 1024 * 1024,
      NanoCpus: 2_000_000_000,
    });
    // An unknown name gets the configured type's limits, as a container that names none.
    const unknown = { ...app, Env: ["CLOUD_IDE_MACHINE=huge"] };
    expect(rewriteCreate("workerd-ide-Workspace-1", unknown, limits).HostConfig).toMatchObject(limits);
  });

  it("mounts a test's small disk only where the test dev server allows it, and only under /workspace", () => {
    const app = {
      Image: "cloudflare-dev/sandbox:1",
      Env: ["CLOUD_IDE_TEST_SMALL_DISK=/workspace/small:4m"],
      HostConfig: { NetworkMode: "container:workerd-ide-Workspace-1-proxy" },
    };
    const name = "workerd-ide-Workspace-1";
    expect(rewriteCreate(name, app, limits, [], [], true).HostConfig.Tmpfs).toEqual({ "/workspace/small": "size=4m" });
    expect(rewriteCreate(name, app, limits).HostConfig.Tmpfs).toBeUndefined();
    for (const bad of ["/etc:4m", "/workspace/../etc:4m", "/workspace/small:4g", "/workspace/small"]) {
      const asked = { ...app, Env: [`CLOUD_IDE_TEST_SMALL_DISK=${bad}`] };
      expect(rewriteCreate(name, asked, limits, [], [], true).HostConfig.Tmpfs, bad).toBeUndefined();
    }
  });

  it("leaves other containers alone (workerd's snapshot copy helpers)", () => {
    const helper = { Image: "x", Entrypoint: ["/bin/cp"], HostConfig: { Binds: ["a:/src:ro"] } };
    expect(rewriteCreate("", helper, limits)).toEqual(helper);
    expect(rewriteCreate("", helper, limits, [], ["cache:/root/.npm"])).toEqual(helper);
  });

  it("adds a test tier's volumes to app containers only (the frameworks matrix's npm cache)", () => {
    const app = {
      Image: "cloudflare-dev/sandbox:1",
      HostConfig: { NetworkMode: "container:workerd-ide-Workspace-1-proxy", Binds: ["snap:/restore:ro"] },
    };
    const binds = ["cloud-ide-frameworks-npm:/root/.npm"];
    expect(rewriteCreate("workerd-ide-Workspace-1", app, limits, [], binds).HostConfig.Binds).toEqual([
      "snap:/restore:ro",
      ...binds,
    ]);
    expect(rewriteCreate("workerd-ide-Workspace-1", app, limits).HostConfig.Binds).toEqual(["snap:/restore:ro"]);
    const sidecar = { Cmd: ["--http-egress-port", "1"], ExposedPorts: {}, HostConfig: {} };
    expect(rewriteCreate("workerd-ide-Workspace-1-proxy", sidecar, limits, [], binds).HostConfig.Binds).toBeUndefined();
  });

  it("takes a snapshot's commit without pausing the container, and passes every other path as it came", () => {
    const commit = "/v1.41/commit?container=workerd-ide-Workspace-1&repo=workerd-container-snap-1&pause=true";
    const sent = new URL(rewritePath("POST", commit), "http://engine");
    expect(sent.pathname).toBe("/v1.41/commit");
    expect(sent.searchParams.get("pause")).toBe("false");
    expect(sent.searchParams.get("container")).toBe("workerd-ide-Workspace-1");
    expect(sent.searchParams.get("repo")).toBe("workerd-container-snap-1");
    expect(new URL(rewritePath("POST", "/commit?container=c"), "http://engine").searchParams.get("pause")).toBe(
      "false",
    );
    const others: [string, string][] = [
      ["POST", "/v1.41/containers/c/pause"],
      ["GET", "/v1.41/commit?container=c"],
      ["POST", "/v1.41/containers/create?name=commit"],
    ];
    for (const [method, path] of others) {
      expect(rewritePath(method, path)).toBe(path);
    }
  });

  it("finds the engine where wrangler would", () => {
    expect(engineAddress({ DOCKER_HOST: "unix:///run/user/docker.sock" })).toEqual({
      socketPath: "/run/user/docker.sock",
    });
    expect(engineAddress({ WRANGLER_DOCKER_HOST: "tcp://127.0.0.1:2375", DOCKER_HOST: "unix:///x" })).toEqual({
      host: "127.0.0.1",
      port: 2375,
    });
  });
});

describe("instance types", () => {
  it("map to Docker limits, and an unknown one is refused with the known ones", () => {
    expect(dockerLimits("lite")).toMatchObject({ Memory: 256 * 1024 * 1024, NanoCpus: 62_500_000 });
    expect(() => dockerLimits("huge")).toThrow(/lite, basic, standard-1/);
  });

  it("come from wrangler.jsonc", () => {
    expect(dockerLimits(configuredInstanceType(new URL("../../", import.meta.url).pathname))).toBeDefined();
  });
});

describe("the engine proxy's hijacked streams", () => {
  const output = "x".repeat(4 * 1024 * 1024);

  /** An engine that answers an exec start as Docker does (101, then the stream), and the proxy in front of it. */
  async function engineAndProxy(
    onStream: (socket: import("node:net").Socket, stdin: string) => void,
    answer = "HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n",
  ) {
    const { createServer } = await import("node:net");
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { startEngineProxy } = await import("../../scripts/lib/engine-proxy.mjs");
    const dir = mkdtempSync(join(tmpdir(), "engine-proxy-test-"));
    const engine = createServer({ allowHalfOpen: true }, (socket) => {
      let received = "";
      let answered = false;
      socket.on("data", (chunk) => {
        received += chunk;
        const end = received.indexOf("\r\n\r\n");
        if (answered || end < 0 || received.length < end + 4 + 2) return;
        answered = true;
        socket.write(answer);
        onStream(socket, received.slice(end + 4));
      });
    });
    await new Promise<void>((resolve) => engine.listen(join(dir, "engine.sock"), resolve));
    const proxy = await startEngineProxy({
      env: { DOCKER_HOST: `unix://${join(dir, "engine.sock")}` },
      limits,
      egressGate: false,
    });
    return {
      path: proxy.dockerHost.slice("unix://".length),
      close: async () => {
        await proxy.close();
        engine.close();
      },
    };
  }

  /** Starts an exec through the proxy and reads the stream until the engine ends it. */
  async function execThrough(path: string, { endStdin }: { endStdin: boolean }): Promise<string> {
    const { connect } = await import("node:net");
    return new Promise<string>((resolve, reject) => {
      const client = connect({ path, allowHalfOpen: true });
      const chunks: Buffer[] = [];
      client.on("data", (chunk: Buffer) => chunks.push(chunk));
      // Like a runtime pumping a request body into stdin, it keeps writing until the output ends.
      let feeding: ReturnType<typeof setInterval> | undefined;
      client.on("end", () => {
        clearInterval(feeding);
        client.end();
        resolve(Buffer.concat(chunks).toString("latin1"));
      });
      client.on("error", (error) => {
        clearInterval(feeding);
        reject(error);
      });
      const request =
        "POST /exec/1/start HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n" +
        "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
      if (endStdin) client.end(request);
      else {
        client.write(request);
        feeding = setInterval(() => client.write("stdin"), 2);
      }
    });
  }

  it("deliver all of the output when the process ends while the client still writes to stdin", async () => {
    const setup = await engineAndProxy((socket) => socket.end(output));
    try {
      const reply = await execThrough(setup.path, { endStdin: false });
      expect(reply.startsWith("HTTP/1.1 101 UPGRADED\r\n")).toBe(true);
      expect(reply.length - reply.indexOf("\r\n\r\n") - 4).toBe(output.length);
    } finally {
      await setup.close();
    }
  });

  it("pass the client's end of stdin on, and still carry the output that follows it", async () => {
    const setup = await engineAndProxy((socket) => socket.once("end", () => socket.end(output)));
    try {
      const reply = await execThrough(setup.path, { endStdin: true });
      expect(reply.length - reply.indexOf("\r\n\r\n") - 4).toBe(output.length);
    } finally {
      await setup.close();
    }
  });

  it("end the connection after a refused start, which the engine keeps open (a container being removed)", async () => {
    // Docker's answer to an exec start on a container going away; it then leaves the connection open.
    const refusal = '{"message":"container is not running"}\n';
    const setup = await engineAndProxy(
      () => {},
      `HTTP/1.1 500 Internal Server Error\r\nApi-Version: 1.41\r\nContent-Type: application/json\r\nContent-Length: ${refusal.length}\r\n\r\n${refusal}`,
    );
    try {
      // Read to the end of the stream, as workerd reads a refused start's body: it must come.
      const reply = await execThrough(setup.path, { endStdin: false });
      expect(reply.startsWith("HTTP/1.1 500 Internal Server Error\r\n")).toBe(true);
      expect(reply.endsWith(refusal)).toBe(true);
    } finally {
      await setup.close();
    }
  });
});

describe("the engine proxy's reading of an upgrade's answer", () => {
  const bytes = (text: string) => Buffer.from(text, "latin1");

  it("sees a 101 as upgraded, whatever follows", () => {
    const answer = upgradeAnswer();
    expect(answer(bytes("HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\n"))).toBe("pending");
    expect(answer(bytes("Upgrade: tcp\r\n\r\nHTTP/1.1 500 looks like output"))).toBe("upgraded");
    expect(answer(bytes("more output"))).toBe("upgraded");
  });

  it("sees another status as refused once its whole body has passed, by length or by chunks", () => {
    const byLength = upgradeAnswer();
    expect(byLength(bytes("HTTP/1.1 404 Not Found\r\nContent-Length: 10\r\n\r\n12345"))).toBe("pending");
    expect(byLength(bytes("67890"))).toBe("refused");
    const chunked = upgradeAnswer();
    expect(chunked(bytes("HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"))).toBe("pending");
    expect(chunked(bytes("0\r\n\r\n"))).toBe("refused");
    // No length and no keep-alive: the body ends when the engine closes, which the pipe passes on.
    expect(upgradeAnswer()(bytes("HTTP/1.0 500 Oops\r\n\r\nsome text"))).toBe("pending");
  });
});
