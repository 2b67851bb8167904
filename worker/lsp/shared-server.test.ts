import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { JsonRpcErrorCode, SERVER_STATUS_METHOD } from "../../protocol/language-servers";
import type { JsonRpcMessage } from "./json-rpc";
import { type ServerConnection, SharedLanguageServer } from "./shared-server";

/** A language server in memory: it answers initialize and shutdown, and records the rest. */
class FakeServer implements ServerConnection {
  readonly received: JsonRpcMessage[] = [];
  private end!: () => void;
  readonly exited = new Promise<void>((resolve) => {
    this.end = resolve;
  });
  killed = false;

  constructor(private readonly reply: (json: string) => void) {}

  send(message: JsonRpcMessage): void {
    this.received.push(message);
    if (message.method === "initialize") this.answer(message.id as number, { capabilities: { hoverProvider: true } });
    if (message.method === "shutdown") this.answer(message.id as number, null);
    if (message.method === "exit") this.end();
  }

  answer(id: number, result: unknown): void {
    queueMicrotask(() => this.reply(JSON.stringify({ jsonrpc: "2.0", id, result })));
  }

  push(message: object): void {
    this.reply(JSON.stringify({ jsonrpc: "2.0", ...message }));
  }

  crash(): void {
    this.end();
  }

  async kill(): Promise<void> {
    this.killed = true;
    this.end();
  }

  settings(section: string | undefined): unknown {
    return section === "python" ? { pythonPath: "/workspace/.venv/bin/python" } : null;
  }

  methods(): string[] {
    return this.received.map((m) => m.method ?? `answer ${m.id}`);
  }

  last(method: string): JsonRpcMessage | undefined {
    return this.received.filter((m) => m.method === method).at(-1);
  }
}

class FakePage {
  readonly received: JsonRpcMessage[] = [];
  send(message: JsonRpcMessage): void {
    this.received.push(message);
  }
  answer(id: number): JsonRpcMessage | undefined {
    return this.received.find((m) => m.id === id && m.method === undefined);
  }
  diagnostics(): JsonRpcMessage[] {
    return this.received.filter((m) => m.method === "textDocument/publishDiagnostics");
  }
}

const URI = "file:///workspace/src/a.ts";
const flush = () => vi.advanceTimersByTimeAsync(0);

let servers: FakeServer[];
let shared: SharedLanguageServer;
let failStart: Error | undefined;

beforeEach(() => {
  vi.useFakeTimers();
  servers = [];
  failStart = undefined;
  shared = new SharedLanguageServer({
    name: "Test",
    initializationOptions: { fromSpec: true },
    idleMs: 60_000,
    log: () => {},
    start: async (onMessage) => {
      if (failStart) throw failStart;
      const server = new FakeServer(onMessage);
      servers.push(server);
      return server;
    },
  });
});
afterEach(() => {
  vi.useRealTimers();
});

const server = () => servers.at(-1) as FakeServer;

async function connect(id = 1) {
  const page = new FakePage();
  const handle = shared.connect(page);
  handle.receive({ jsonrpc: "2.0", id, method: "initialize", params: { capabilities: {}, rootUri: null } });
  await flush();
  return { page, handle };
}

function open(handle: { receive(m: JsonRpcMessage): void }, text: string, version = 0) {
  handle.receive({
    jsonrpc: "2.0",
    method: "textDocument/didOpen",
    params: { textDocument: { uri: URI, languageId: "typescript", version, text } },
  });
}

function change(handle: { receive(m: JsonRpcMessage): void }, version: number, contentChanges: unknown[]) {
  handle.receive({
    jsonrpc: "2.0",
    method: "textDocument/didChange",
    params: { textDocument: { uri: URI, version }, contentChanges },
  });
}

describe("a language server shared by several pages", () => {
  it("initializes the server once and replays its answer to later pages", async () => {
    const a = await connect(1);
    const b = await connect(7);
    expect(servers).toHaveLength(1);
    expect(
      server()
        .methods()
        .filter((m) => m === "initialize"),
    ).toHaveLength(1);
    const init = server().last("initialize")?.params as Record<string, unknown>;
    expect(init.rootUri).toBe("file:///workspace");
    expect(init.initializationOptions).toEqual({ fromSpec: true });
    expect(server().methods()).toContain("initialized");
    expect(a.page.answer(1)?.result).toEqual({ capabilities: { hoverProvider: true } });
    expect(b.page.answer(7)?.result).toEqual({ capabilities: { hoverProvider: true } });
    expect(b.page.received.some((m) => m.method === SERVER_STATUS_METHOD)).toBe(true);
  });

  it("rewrites request ids and answers each page with its own", async () => {
    const a = await connect();
    const b = await connect();
    a.handle.receive({ jsonrpc: "2.0", id: 5, method: "textDocument/hover", params: {} });
    b.handle.receive({ jsonrpc: "2.0", id: 5, method: "textDocument/hover", params: {} });
    const [first, second] = server().received.filter((m) => m.method === "textDocument/hover");
    expect(first?.id).not.toBe(second?.id);
    server().push({ id: second?.id, result: "for b" });
    server().push({ id: first?.id, result: "for a" });
    expect(a.page.answer(5)?.result).toBe("for a");
    expect(b.page.answer(5)?.result).toBe("for b");
  });

  it("passes a page's cancellation on with the server's id", async () => {
    const a = await connect();
    a.handle.receive({ jsonrpc: "2.0", id: "req", method: "textDocument/completion", params: {} });
    const sent = server().last("textDocument/completion");
    a.handle.receive({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: "req" } });
    expect(server().last("$/cancelRequest")?.params).toEqual({ id: sent?.id });
  });

  it("refuses requests before initialize", async () => {
    const page = new FakePage();
    const handle = shared.connect(page);
    handle.receive({ jsonrpc: "2.0", id: 3, method: "textDocument/hover", params: {} });
    expect(page.answer(3)?.error?.code).toBe(JsonRpcErrorCode.ServerNotInitialized);
    expect(servers).toHaveLength(0);
  });

  it("opens a file on the server once and closes it with the last page", async () => {
    const a = await connect();
    const b = await connect();
    open(a.handle, "let x = 1;");
    open(b.handle, "let x = 1;");
    expect(
      server()
        .methods()
        .filter((m) => m === "textDocument/didOpen"),
    ).toHaveLength(1);
    expect(server().methods()).not.toContain("textDocument/didChange");
    a.handle.receive({ jsonrpc: "2.0", method: "textDocument/didClose", params: { textDocument: { uri: URI } } });
    expect(server().methods()).not.toContain("textDocument/didClose");
    b.handle.close();
    expect(server().last("textDocument/didClose")?.params).toEqual({ textDocument: { uri: URI } });
  });

  it("gives the server a page's whole text when another page's edits are what it holds", async () => {
    const a = await connect();
    const b = await connect();
    open(a.handle, "let x = 1;");
    open(b.handle, "let x = 1;");
    const edit = [{ range: { start: { line: 0, character: 8 }, end: { line: 0, character: 9 } }, text: "2" }];
    change(a.handle, 1, edit);
    expect(server().last("textDocument/didChange")?.params).toEqual({
      textDocument: { uri: URI, version: 2 },
      contentChanges: edit,
    });
    // b still has "let x = 1;": its edit cannot apply to the server's text.
    change(b.handle, 1, [{ range: { start: { line: 0, character: 4 }, end: { line: 0, character: 5 } }, text: "y" }]);
    expect(server().last("textDocument/didChange")?.params).toEqual({
      textDocument: { uri: URI, version: 3 },
      contentChanges: [{ text: "let y = 1;" }],
    });
  });

  it("sends diagnostics to every page, with each page's own version", async () => {
    const a = await connect();
    const b = await connect();
    open(a.handle, "let x = 1;", 4);
    change(a.handle, 5, [{ text: "let x: string = 1;" }]);
    const diagnostics = [{ message: "bad", range: {} }];
    server().push({ method: "textDocument/publishDiagnostics", params: { uri: URI, version: 2, diagnostics } });
    expect(a.page.diagnostics().at(-1)?.params).toEqual({ uri: URI, version: 5, diagnostics });
    // b does not have the file open: it gets them without a version (for its Problems list).
    expect(b.page.diagnostics().at(-1)?.params).toEqual({ uri: URI, diagnostics });
    // A page that opens the same text later gets them replayed with its own version.
    open(b.handle, "let x: string = 1;", 9);
    expect(b.page.diagnostics().at(-1)?.params).toEqual({ uri: URI, version: 9, diagnostics });
  });

  it("answers the server's own requests for every page", async () => {
    const a = await connect();
    server().push({ id: 99, method: "workspace/configuration", params: { items: [{ section: "python" }, {}] } });
    expect(server().received.find((m) => m.id === 99)?.result).toEqual([
      { pythonPath: "/workspace/.venv/bin/python" },
      null,
    ]);
    server().push({ id: 100, method: "client/registerCapability", params: { registrations: [] } });
    expect(server().received.find((m) => m.id === 100)?.result).toBeNull();
    expect(a.page.received.some((m) => m.id === 99 || m.id === 100)).toBe(false);
  });

  it("keeps the server for the others when one page says shutdown", async () => {
    const a = await connect();
    a.handle.receive({ jsonrpc: "2.0", id: 2, method: "shutdown" });
    a.handle.receive({ jsonrpc: "2.0", method: "exit" });
    expect(a.page.answer(2)?.result).toBeNull();
    expect(server().methods()).not.toContain("shutdown");
    expect(server().methods()).not.toContain("exit");
  });

  it("starts a server that died again, reopens the files and answers what was in flight", async () => {
    const a = await connect();
    open(a.handle, "let x = 1;");
    a.handle.receive({ jsonrpc: "2.0", id: 8, method: "textDocument/hover", params: {} });
    const first = server();
    first.crash();
    await flush();
    expect(a.page.answer(8)?.error?.code).toBe(JsonRpcErrorCode.RequestCancelled);
    expect(a.page.received.at(-1)).toMatchObject({ method: SERVER_STATUS_METHOD, params: { state: "restarting" } });
    // Edits made while it was down reach the new one.
    change(a.handle, 1, [{ text: "let x = 2;" }]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(servers).toHaveLength(2);
    expect(server().methods().slice(0, 3)).toEqual(["initialize", "initialized", "textDocument/didOpen"]);
    expect(server().last("textDocument/didOpen")?.params).toMatchObject({ textDocument: { text: "let x = 2;" } });
    a.handle.receive({ jsonrpc: "2.0", id: 9, method: "textDocument/hover", params: {} });
    server().push({ id: server().last("textDocument/hover")?.id, result: "works" });
    expect(a.page.answer(9)?.result).toBe("works");
  });

  it("says why it cannot start, and tries again on the next message", async () => {
    failStart = new Error("no such file");
    const page = new FakePage();
    const handle = shared.connect(page);
    handle.receive({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
    await flush();
    expect(page.answer(1)?.error?.message).toMatch(/Test language server could not start: no such file/);
    failStart = undefined;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(servers).toHaveLength(1);
  });

  it("shuts the server down when no page has been connected for a while", async () => {
    const a = await connect();
    a.handle.close();
    await vi.advanceTimersByTimeAsync(59_000);
    expect(server().methods()).not.toContain("shutdown");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(server().methods()).toEqual(expect.arrayContaining(["shutdown", "exit"]));
    expect(server().killed).toBe(true);
    expect(shared.running).toBe(false);
    // A page that comes back gets a new one.
    await connect();
    expect(servers).toHaveLength(2);
    expect(shared.running).toBe(true);
  });

  it("tells running servers about changes on disk", async () => {
    await connect();
    shared.filesChanged([{ uri: "file:///workspace/src/b.ts", type: 1 }]);
    expect(server().last("workspace/didChangeWatchedFiles")?.params).toEqual({
      changes: [{ uri: "file:///workspace/src/b.ts", type: 1 }],
    });
  });
});
