import { describe, expect, inject, it } from "vitest";
import { JsonRpcErrorCode, SERVER_STATUS_METHOD } from "../../protocol/language-servers";
import { api } from "../support/api";
import { putFile, shell, workspaceContainer } from "../support/files";
import { diagnosticsFor, initializedLspSocket, type LspSocket } from "../support/lsp-client";
import { createWorkspace, ownerApi, ownerCookie } from "../support/session";
import { upgradeAnswer } from "../support/upgrades";
import { accessUser } from "../support/users";

const MAIN = "file:///workspace/src/main.tsx";

/** Opens a file of the workspace on the socket, with its text from the container. */
function openFile(socket: LspSocket, container: string, path: string, languageId: string, version = 0) {
  const text = shell(container, `cat /workspace/${path}`);
  socket.notify("textDocument/didOpen", {
    textDocument: { uri: `file:///workspace/${path}`, languageId, version, text },
  });
  return text;
}

/** Language-server processes of this kind running in the container. */
function serverProcesses(container: string, name: string): number {
  // "[t]ypescript" matches the server but not this shell, whose command line holds the pattern.
  return Number(shell(container, `pgrep -fc '[${name[0]}]${name.slice(1)}' || true`));
}

describe("language servers", () => {
  it("answers completion, hover and definition for the template app, and its diagnostics", async () => {
    const id = await createWorkspace("lsp basics");
    const container = await workspaceContainer(id);
    const socket = await initializedLspSocket(id, "typescript");
    const init = socket.messages.find((m) => m.id === 1);
    expect(init?.result.capabilities.completionProvider).toBeTruthy();
    expect(init?.result.capabilities.renameProvider).toBeTruthy();

    const text = `${openFile(socket, container, "src/main.tsx", "typescriptreact")}document.qu\n`;
    socket.notify("textDocument/didChange", { textDocument: { uri: MAIN, version: 1 }, contentChanges: [{ text }] });
    // Diagnostics come once the project is loaded; before that, answers come from a partial program.
    await diagnosticsFor(socket, MAIN, (d) => d.some((x) => x.message.includes("'qu'")), "the project loaded");
    const lines = text.split("\n");
    const line = lines.length - 2;
    const completion = await socket.request("textDocument/completion", {
      textDocument: { uri: MAIN },
      position: { line, character: "document.qu".length },
    });
    const items = (completion.result.items ?? completion.result) as { label: string }[];
    expect(items.map((i) => i.label)).toContain("querySelector");

    // `<App />` is defined in src/App.tsx (line 3: `export function App() {`).
    const usage = lines.findIndex((l) => l.includes("<App />"));
    const definition = await socket.request("textDocument/definition", {
      textDocument: { uri: MAIN },
      position: { line: usage, character: (lines[usage]?.indexOf("<App") ?? 0) + 1 },
    });
    const target = [definition.result].flat()[0] as {
      uri?: string;
      targetUri?: string;
      range?: { start: { line: number } };
    };
    expect(target.uri ?? target.targetUri).toBe("file:///workspace/src/App.tsx");

    const broken = `${text}const n: number = "text";\n`;
    socket.notify("textDocument/didChange", {
      textDocument: { uri: MAIN, version: 2 },
      contentChanges: [{ text: broken }],
    });
    await diagnosticsFor(
      socket,
      MAIN,
      (d) => d.some((x) => x.message.includes("not assignable to type 'number'")),
      "the type error",
    );
    socket.close();
  });

  it("shares one server between sockets, each with its own ids", async () => {
    const id = await createWorkspace("lsp shared");
    const container = await workspaceContainer(id);
    const a = await initializedLspSocket(id, "typescript");
    const b = await initializedLspSocket(id, "typescript");
    expect(b.messages.find((m) => m.id === 1)?.result.capabilities.hoverProvider).toBeTruthy();
    expect(serverProcesses(container, "typescript-language-server")).toBe(1);

    openFile(a, container, "src/App.tsx", "typescriptreact");
    openFile(b, container, "src/App.tsx", "typescriptreact");
    const position = { line: 0, character: 10 }; // useState
    const [fromA, fromB] = await Promise.all([
      a.request("textDocument/hover", { textDocument: { uri: "file:///workspace/src/App.tsx" }, position }),
      b.request("textDocument/hover", { textDocument: { uri: "file:///workspace/src/App.tsx" }, position }),
    ]);
    expect(JSON.stringify(fromA.result)).toContain("useState");
    expect(fromB.result).toEqual(fromA.result);

    // A diagnostic caused by one page's edit reaches the other one too.
    a.notify("textDocument/didChange", {
      textDocument: { uri: "file:///workspace/src/App.tsx", version: 1 },
      contentChanges: [{ text: "export const broken: number = 'no';\n" }],
    });
    const mismatch = (d: { message: string }[]) => d.some((x) => x.message.includes("not assignable"));
    await diagnosticsFor(a, "file:///workspace/src/App.tsx", mismatch, "a's diagnostics");
    await diagnosticsFor(b, "file:///workspace/src/App.tsx", mismatch, "b's diagnostics");
    a.close();
    b.close();
  });

  it("answers a malformed frame with a JSON-RPC error and keeps working", async () => {
    const id = await createWorkspace("lsp malformed");
    const container = await workspaceContainer(id);
    const socket = await initializedLspSocket(id, "typescript");
    const errors = () => socket.messages.filter((m) => m.error && m.id === null);
    socket.sendRaw("this is not json");
    await socket.waitFor((m) => m.error?.code === JsonRpcErrorCode.ParseError, "a parse error");
    socket.sendRaw("[1, 2]");
    socket.sendRaw('{"jsonrpc":"1.0","id":77,"method":"x"}');
    socket.ws.send(Buffer.from([1, 2, 3]));
    await socket.waitFor((m) => m.id === 77 && m.error?.code === JsonRpcErrorCode.InvalidRequest, "id 77 refused");
    await socket.waitFor(() => errors().length >= 3, "three refusals");
    // The server is untouched.
    openFile(socket, container, "src/App.tsx", "typescriptreact");
    const hover = await socket.request("textDocument/hover", {
      textDocument: { uri: "file:///workspace/src/App.tsx" },
      position: { line: 0, character: 10 },
    });
    expect(JSON.stringify(hover.result)).toContain("useState");
    expect(serverProcesses(container, "typescript-language-server")).toBe(1);
    socket.close();
  });

  it("comes back after its server is killed, with the files still open", async () => {
    const id = await createWorkspace("lsp restart");
    const container = await workspaceContainer(id);
    const socket = await initializedLspSocket(id, "typescript");
    openFile(socket, container, "src/App.tsx", "typescriptreact");
    const uri = "file:///workspace/src/App.tsx";
    await socket.request("textDocument/hover", { textDocument: { uri }, position: { line: 0, character: 10 } });
    const before = socket.messages.length;
    shell(container, "pkill -KILL -f '[t]ypescript-language-server'");
    await socket.waitFor(
      (m) => socket.messages.indexOf(m) >= before && m.method === SERVER_STATUS_METHOD && m.params.state === "ready",
      "the server back",
    );
    expect(socket.messages.slice(before).some((m) => m.params?.state === "restarting")).toBe(true);
    // Without opening it again: the bridge reopened it on the new server.
    const hover = await socket.request("textDocument/hover", {
      textDocument: { uri },
      position: { line: 0, character: 10 },
    });
    expect(JSON.stringify(hover.result)).toContain("useState");
    socket.close();
  });

  it("tells the server about files changed on disk", async () => {
    // The JSON server has no watcher of its own: a schema changed in the terminal
    // reaches it only as workspace/didChangeWatchedFiles from the workspace's watcher.
    const id = await createWorkspace("lsp watcher");
    const container = await workspaceContainer(id);
    shell(container, `printf '{"type":"object","properties":{"a":{"type":"string"}}}' > /workspace/schema.json`);
    const socket = await initializedLspSocket(id, "json");
    const uri = "file:///workspace/data.json";
    socket.notify("textDocument/didOpen", {
      textDocument: { uri, languageId: "json", version: 0, text: '{"$schema": "./schema.json", "a": 1}' },
    });
    await diagnosticsFor(
      socket,
      uri,
      (d) => d.some((x) => x.message.includes('Expected "string"')),
      "the schema's error",
    );
    shell(container, `printf '{"type":"object","properties":{"a":{"type":"number"}}}' > /workspace/schema.json`);
    await diagnosticsFor(socket, uri, (d) => d.length === 0, "the changed schema");
    socket.close();
  });

  it("sees a module changed in the terminal (TypeScript)", async () => {
    const id = await createWorkspace("lsp ts disk");
    const container = await workspaceContainer(id);
    shell(container, "printf 'export function later(): number { return 1; }\\n' > /workspace/src/later.ts");
    const socket = await initializedLspSocket(id, "typescript");
    const uri = "file:///workspace/src/uses-later.ts";
    socket.notify("textDocument/didOpen", {
      textDocument: {
        uri,
        languageId: "typescript",
        version: 0,
        text: 'import { later } from "./later";\nexport const text: string = later();\n',
      },
    });
    const mismatch = (d: { message: string }[]) => d.some((x) => x.message.includes("not assignable to type 'string'"));
    await diagnosticsFor(socket, uri, mismatch, "number is not string");
    shell(container, "printf 'export function later(): string { return \"1\"; }\\n' > /workspace/src/later.ts");
    // The server re-checks open files once it sees the change; a nudge asks it to publish again.
    let version = 0;
    await expect
      .poll(
        async () => {
          socket.notify("textDocument/didChange", {
            textDocument: { uri, version: ++version },
            contentChanges: [{ text: 'import { later } from "./later";\nexport const text: string = later();\n' }],
          });
          await new Promise((resolve) => setTimeout(resolve, 500));
          const latest = socket.messages.filter((m) => m.params?.uri === uri).at(-1);
          return latest?.params.diagnostics.length;
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBe(0);
    socket.close();
  });

  it("reports an undefined name in Python", async () => {
    const id = await createWorkspace("lsp python");
    expect((await putFile(id, "app.py", "print(undefined_name)\n")).status).toBe(200);
    const socket = await initializedLspSocket(id, "python");
    const uri = "file:///workspace/app.py";
    socket.notify("textDocument/didOpen", {
      textDocument: { uri, languageId: "python", version: 0, text: "print(undefined_name)\n" },
    });
    const diagnostics = await diagnosticsFor(
      socket,
      uri,
      (d) => d.some((x) => x.message.includes('"undefined_name" is not defined')),
      "the undefined name",
    );
    // Standard checking: only the real error, not basedpyright's strictest defaults.
    expect(diagnostics.params.diagnostics).toHaveLength(1);
    socket.close();
  });

  it("sees a module changed in the terminal (Python)", async () => {
    const id = await createWorkspace("lsp python disk");
    const container = await workspaceContainer(id);
    shell(container, "printf 'def other() -> None:\\n    pass\\n' > /workspace/helper.py");
    const socket = await initializedLspSocket(id, "python");
    const uri = "file:///workspace/main.py";
    socket.notify("textDocument/didOpen", {
      textDocument: { uri, languageId: "python", version: 0, text: "from helper import greet\n\ngreet()\n" },
    });
    const unknown = (d: { message: string }[]) => d.some((x) => x.message.includes('"greet" is unknown import symbol'));
    await diagnosticsFor(socket, uri, unknown, "greet missing from helper.py");
    // Not through the files API: only the workspace's watcher sees this, and main.py is not edited.
    shell(container, "printf 'def greet() -> None:\\n    pass\\n' > /workspace/helper.py");
    await diagnosticsFor(socket, uri, (d) => d.length === 0, "greet defined in helper.py");
    shell(container, "rm /workspace/helper.py");
    await diagnosticsFor(
      socket,
      uri,
      (d) => d.some((x) => x.message.includes('Import "helper" could not be resolved')),
      "helper.py deleted",
    );
    // Written while the watcher is down (it comes back on its own): the event is lost, but the server must still learn.
    shell(container, "pkill -f '[i]notifywait'; printf 'def greet() -> None:\\n    pass\\n' > /workspace/helper.py");
    await diagnosticsFor(socket, uri, (d) => d.length === 0, "helper.py written while the watcher restarted");
    socket.close();
  });

  it("resolves imports from the workspace's virtualenv", async () => {
    const id = await createWorkspace("lsp venv");
    const container = await workspaceContainer(id);
    shell(
      container,
      "cd /workspace && python3 -m venv --without-pip .venv && " +
        "d=$(echo .venv/lib/python3*/site-packages)/venvonly && mkdir -p $d && " +
        `printf 'def hello() -> str:\\n    return "hi"\\n' > $d/__init__.py`,
    );
    const socket = await initializedLspSocket(id, "python");
    const uri = "file:///workspace/uses_venv.py";
    socket.notify("textDocument/didOpen", {
      textDocument: { uri, languageId: "python", version: 0, text: "from venvonly import hello\nx: int = hello()\n" },
    });
    // Found in .venv (no unresolved import), and typed from it: hello() returns str.
    const diagnostics = await diagnosticsFor(socket, uri, (d) => d.length > 0, "the diagnostics");
    const messages = diagnostics.params.diagnostics.map((d: { message: string }) => d.message).join("\n");
    expect(messages).not.toContain("could not be resolved");
    expect(messages).toContain('"str" is not assignable to declared type "int"');
    socket.close();
  });

  it("refuses an unknown language and a request that is not a WebSocket", async () => {
    const id = await createWorkspace("lsp refusals");
    const unknown = await ownerApi(`/ws/workspaces/${id}/lsp/cobol`);
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({
      code: "UNKNOWN_LANGUAGE",
      message: expect.stringContaining("typescript"),
    });
    const owner = { Cookie: await ownerCookie(), Origin: inject("baseUrl") };
    expect(await upgradeAnswer(`/ws/workspaces/${id}/lsp/cobol`, owner)).toBe(400);
    await workspaceContainer(id); // running: a stopped one answers plain reads 409 without waking
    const plain = await ownerApi(`/ws/workspaces/${id}/lsp/typescript`);
    expect(plain.status).toBe(426);
  });

  it("keeps another user away from the owner's language servers", async () => {
    const id = await createWorkspace("lsp private");
    const mallory = await accessUser("mallory@example.com");
    const response = await api(`/ws/workspaces/${id}/lsp/typescript`, { headers: mallory });
    expect(response.status).toBe(404);
    const path = `/ws/workspaces/${id}/lsp/typescript`;
    expect(await upgradeAnswer(path, mallory)).toBe(404);
    // Another origin cannot open it with the owner's session (a preview page, say).
    const cookie = await ownerCookie();
    expect(await upgradeAnswer(path, { Cookie: cookie, Origin: "http://evil.test" })).toBe(403);
  });
});
