/**
 * `cloud-ide tunnel` as ssh runs it (ProxyCommand), against stand-ins for
 * the IDE on loopback: it must not outlive ssh. A tunnel still opening when
 * ssh went away (gave up, was killed) once stayed forever, holding the
 * stderr it shares with ssh, so whoever waited for that to close hung too.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";

const CLI = join(import.meta.dirname, "../cloud-ide.mjs");

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
}

function tunnel(port: number): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [CLI, "tunnel", "abc123"], {
    env: {
      PATH: process.env.PATH,
      HOME: "/nonexistent",
      CLOUD_IDE_URL: `http://127.0.0.1:${port}`,
      CLOUD_IDE_TOKEN: "t",
    },
  });
  closers.push(() => child.kill("SIGKILL"));
  return child;
}

/** The exit status once every pipe of the child is closed (what spawnSync and execFile wait for), or "still running". */
function closed(child: ChildProcessWithoutNullStreams, ms: number): Promise<number | null | "still running"> {
  return Promise.race([
    new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code))),
    new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), ms)),
  ]);
}

describe("cloud-ide tunnel", () => {
  it("exits when its stdin ends while the IDE has not answered yet (after a few seconds' grace)", async () => {
    const connections: Socket[] = [];
    // An IDE that takes the request and never answers (a wake that does not end).
    const silent = createServer((socket) => connections.push(socket));
    closers.push(() => {
      for (const socket of connections) socket.destroy();
      silent.close();
    });
    const child = tunnel(await listen(silent));
    child.stdin.write("SSH-2.0-OpenSSH_test\r\n");
    while (connections.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    child.stdin.end();
    expect(await closed(child, 10_000)).toBe(0);
  }, 20_000);

  it("still tells a refusal that comes soon after its stdin ended", async () => {
    const server = createHttpServer();
    server.on("upgrade", (_request, socket) => {
      const body = JSON.stringify({ code: "UNAUTHENTICATED", message: "That token is not known." });
      setTimeout(() => {
        socket.end(
          `HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        );
      }, 500);
    });
    closers.push(() => server.close());
    const child = tunnel(await listen(server));
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdin.end();
    expect(await closed(child, 10_000)).toBe(1);
    expect(stderr).toBe("cloud-ide: The tunnel to abc123 was refused: That token is not known. (UNAUTHENTICATED)\n");
  }, 20_000);

  it("sends what ssh wrote while it opened first, carries both ways, and exits when the IDE closes", async () => {
    const sockets = new WebSocketServer({ noServer: true });
    // An IDE that answers the upgrade only after a while (as a wake does); then a banner each way,
    // and once the client's next line came, it closes.
    const server = createHttpServer();
    const received: string[] = [];
    server.on("upgrade", (request, socket, head) => {
      setTimeout(() => {
        sockets.handleUpgrade(request, socket, head, (ws) => {
          ws.on("message", (data, binary) => {
            if (!binary) return;
            received.push(String(data));
            if (received.join("") === "SSH-2.0-client\r\n") ws.send(Buffer.from("SSH-2.0-server\r\n"));
            if (received.join("").endsWith("more\n")) ws.close(1000, "done");
          });
        });
      }, 500);
    });
    closers.push(() => {
      sockets.close();
      server.close();
    });
    const child = tunnel(await listen(server));
    child.stdin.write("SSH-2.0-client\r\n");
    await new Promise<void>((resolve) =>
      child.stdout.on("data", (chunk) => {
        if (String(chunk).includes("SSH-2.0-server")) resolve();
      }),
    );
    child.stdin.write("more\n");
    expect(await closed(child, 10_000)).toBe(0);
    expect(received.join("")).toBe("SSH-2.0-client\r\nmore\n");
  }, 20_000);
});
