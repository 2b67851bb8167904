import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect as netConnect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Duplex, Readable, Writable } from "node:stream";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { AgentClient, type AgentConnection, AgentStoppedError, AgentUnavailableError } from "./agent-client";
import { FrameKind } from "./agent-protocol";
import { AGENT_SCRIPT } from "./agent-script";
import { type AgentSocket, connectAgentOverTcp, connectionAfter, readFirstFrame, type TcpOutcome } from "./agent-tcp";

/**
 * The agent's TCP transport (agent-tcp.ts and handshake() in the script):
 * the real agent, run by this machine's python3, reached on the port it
 * names, the way the Worker reaches a container's port.
 */
const scratch = mkdtempSync(join(tmpdir(), "agent-tcp-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A Node socket in the shape of workerd's `connect()`. */
function nodeSocket(port: number): AgentSocket & { raw: Socket } {
  const raw = netConnect({ host: "127.0.0.1", port });
  const { readable, writable } = Duplex.toWeb(raw);
  return {
    raw,
    readable: readable as unknown as ReadableStream<Uint8Array>,
    writable: writable as unknown as WritableStream<Uint8Array>,
    opened: new Promise((resolve, reject) => {
      raw.once("connect", resolve);
      raw.once("error", reject);
    }),
    close: () => void raw.destroy(),
  };
}

/** Whether something accepts a connection on the port (a refused connect: false). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = netConnect({ host: "127.0.0.1", port });
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

describe("the agent over TCP", { timeout: 60_000 }, () => {
  let root: string;
  let children: ChildProcess[];
  let client: AgentClient | undefined;

  beforeEach(() => {
    root = join(mkdtempSync(join(scratch, "case-")), "workspace");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "a.txt"), "inside");
    children = [];
  });
  afterEach(async () => {
    await client?.stop();
    client = undefined;
    for (const child of children) child.kill("SIGKILL");
  });

  const start = (script = AGENT_SCRIPT) => {
    const child = spawn("python3", ["-c", script, root, "tcp"], { stdio: ["pipe", "pipe", "inherit"] });
    children.push(child);
    return {
      child,
      stdin: Writable.toWeb(child.stdin as Writable) as unknown as WritableStream<Uint8Array>,
      stdout: Readable.toWeb(child.stdout as Readable) as unknown as ReadableStream<Uint8Array>,
      exited: new Promise((resolve) => child.once("exit", resolve)),
    };
  };

  /** A launcher as the sandbox's: TCP when `connect` reaches the agent, stdio when it does not. */
  const launcher =
    (connect: (port: number) => AgentSocket, outcomes: TcpOutcome[] = [], ports: number[] = []) =>
    async (): Promise<AgentConnection> => {
      const { child, stdin, stdout, exited } = start();
      const outcome = await connectAgentOverTcp({
        stdin,
        stdout,
        connect: (port) => {
          ports.push(port);
          return connect(port);
        },
        startTimeoutMs: 20_000,
        connectTimeoutMs: 2_000,
      });
      outcomes.push(outcome);
      return connectionAfter(outcome, {
        readable: stdout,
        writable: stdin,
        exited,
        kill: async () => void child.kill("SIGKILL"),
      });
    };

  it("serves requests over the connection, and its port takes no other once it is made", async () => {
    const outcomes: TcpOutcome[] = [];
    const ports: number[] = [];
    client = new AgentClient(launcher(nodeSocket, outcomes, ports));
    expect(await client.call("stat", [join(root, "a.txt")])).toMatchObject({ size: 6 });
    const read = await client.open("read", [join(root, "a.txt")]);
    expect(await new Response(read.body).text()).toBe("inside");
    expect(outcomes.map((o) => Object.keys(o))).toEqual([["socket"]]);
    // The listener closed with the first connection that presented the token.
    expect(await accepts(ports[0] as number)).toBe(false);
  });

  it("drops a connection that does not present the token, and the Worker's still gets through", async () => {
    const { stdin, stdout } = start();
    // The intruder knows the port (here, from the agent's first HELLO, as the Worker learns it).
    const [forIntruder, forWorker] = stdout.tee();
    const listening = readFirstFrame(forIntruder).then((frame) => (frame.header as { port: number }).port);
    const writer = stdin.getWriter();
    const token = "0123456789abcdef0123456789abcdef";
    await writer.write(new TextEncoder().encode(`${token}\n`));
    writer.releaseLock();
    const port = await listening;

    // A wrong token of the right length, then one that says nothing: each is closed without a frame.
    for (const presented of [`${"f".repeat(32)}\n`, ""]) {
      const intruder = nodeSocket(port);
      await intruder.opened;
      if (presented) intruder.raw.write(presented);
      const got: Buffer[] = [];
      intruder.raw.on("data", (chunk: Buffer) => got.push(chunk));
      await new Promise((resolve) => intruder.raw.once("close", resolve));
      expect(Buffer.concat(got).byteLength).toBe(0);
    }

    const worker = nodeSocket(port);
    await worker.opened;
    worker.raw.write(`${token}\n`);
    const hello = await readFirstFrame(worker.readable);
    expect(hello.kind).toBe(FrameKind.HELLO);
    expect(await readFirstFrame(forWorker)).toMatchObject({ kind: FrameKind.HELLO });
    worker.close();
  });

  it("falls back to stdio in the same process when the port cannot be reached", async () => {
    const outcomes: TcpOutcome[] = [];
    // A port nothing listens on stands in for a platform whose connect() cannot reach the container.
    client = new AgentClient(launcher(() => nodeSocket(1), outcomes));
    expect(await client.call("stat", [join(root, "a.txt")])).toMatchObject({ size: 6 });
    expect(outcomes).toHaveLength(1);
    expect((outcomes[0] as { stdio: string }).stdio).toMatch(/^port \d+: /);
    expect(children).toHaveLength(1);
  });

  it("falls back to stdio when the connection opens but never answers", async () => {
    const outcomes: TcpOutcome[] = [];
    // A connection that opens and then hears nothing (a relay that accepts and drops): the HELLO never comes.
    const silent = (): AgentSocket => ({
      readable: new ReadableStream<Uint8Array>(),
      writable: new WritableStream<Uint8Array>(),
      opened: Promise.resolve(),
      close: () => {},
    });
    client = new AgentClient(launcher(silent, outcomes));
    expect(await client.call("stat", [join(root, "a.txt")])).toMatchObject({ size: 6 });
    expect((outcomes[0] as { stdio: string }).stdio).toMatch(/no HELLO on the connection within 2 s/);
  });

  it("ends when its connection closes, failing what was in flight, and the next request gets a new agent", async () => {
    const sockets: (AgentSocket & { raw: Socket })[] = [];
    client = new AgentClient(
      launcher((port) => {
        const socket = nodeSocket(port);
        sockets.push(socket);
        return socket;
      }),
    );
    const first = (await client.call("ping", [])) as { pid: number };
    // A request that waits (a save whose content never ends) is in flight when the connection drops.
    const pending = client.call("write", [join(root, "b.txt")], { body: new ReadableStream<Uint8Array>() });
    sockets[0]?.raw.destroy();
    await expect(pending).rejects.toBeInstanceOf(AgentStoppedError);
    await new Promise((resolve) => children[0]?.once("exit", resolve));
    const second = (await client.call("ping", [])) as { pid: number };
    expect(second.pid).not.toBe(first.pid);
  });

  it("says the agent is unavailable when it dies before it listens", async () => {
    client = new AgentClient(async () => {
      const { child, stdin, stdout, exited } = start("import sys; sys.exit(3)");
      await connectAgentOverTcp({
        stdin,
        stdout,
        connect: nodeSocket,
        startTimeoutMs: 20_000,
        connectTimeoutMs: 2_000,
      });
      return { readable: stdout, writable: stdin, exited, kill: async () => void child.kill("SIGKILL") };
    });
    await expect(client.call("ping", [])).rejects.toBeInstanceOf(AgentUnavailableError);
  });
});
