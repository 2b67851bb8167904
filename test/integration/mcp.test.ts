/**
 * The MCP endpoint, driven by the official MCP client over Streamable HTTP
 * against a real container: agent tokens, the tools, confinement, limits,
 * revocation and expiry, and the activity log.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentActivity, AgentTokenList } from "../../protocol/agents";
import { api } from "../support/api";
import { filesUrl, putFile, shell, workspaceContainer } from "../support/files";
import { waitFor } from "../support/lifecycle";
import { call, connect as connectClient, createToken } from "../support/mcp-client";
import { createWorkspace, ownerApi, ownerCookie } from "../support/session";
import { marker, openTerminalSocket } from "../support/terminal-client";

let id: string;
let other: string;
let container: string;
const clients: Client[] = [];

beforeAll(async () => {
  id = await createWorkspace("mcp test", "empty");
  other = await createWorkspace("mcp other", "empty");
  container = await workspaceContainer(id);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
});

/** An MCP client connected to `url` with the token; closed after the file. */
async function connect(url: string, token: string): Promise<Client> {
  const client = await connectClient(url, token);
  clients.push(client);
  return client;
}

async function activity(after = 0): Promise<AgentActivity> {
  const response = await ownerApi(`/api/workspaces/${id}/agent-activity?after=${after}`);
  expect(response.status).toBe(200);
  return (await response.json()) as AgentActivity;
}

describe("agent tokens", () => {
  it("are created once with their secret, listed without it, and validated", async () => {
    const created = await createToken(id, "read", "lister");
    expect(created.token).toMatch(new RegExp(`^cide_${id}_[0-9a-f]{64}$`));
    expect(created.mcpUrl).toBe(new URL(`/mcp/workspaces/${id}`, created.mcpUrl).toString());
    const list = (await (await ownerApi(`/api/workspaces/${id}/agent-tokens`)).json()) as AgentTokenList;
    const listed = list.tokens.find((t) => t.id === created.id);
    expect(listed).toMatchObject({ name: "lister", scope: "read", lastUsedAt: null });
    expect(JSON.stringify(list)).not.toContain(created.token.slice(-64));

    const bad = async (body: unknown) => {
      const response = await ownerApi(`/api/workspaces/${id}/agent-tokens`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, code: ((await response.json()) as { code: string }).code };
    };
    expect(await bad({ name: "", scope: "read", ttlSeconds: 3600 })).toEqual({
      status: 400,
      code: "INVALID_AGENT_TOKEN",
    });
    expect(await bad({ name: "x", scope: "admin", ttlSeconds: 3600 })).toEqual({
      status: 400,
      code: "INVALID_AGENT_TOKEN",
    });
    expect(await bad({ name: "x", scope: "read", ttlSeconds: 5 })).toEqual({ status: 400, code: "INVALID_TTL" });

    // Owner only: no session, no token management.
    const anonymous = await api(`/api/workspaces/${id}/agent-tokens`);
    expect(anonymous.status).toBe(401);
  });

  it("reach only the MCP endpoint: a session route refuses an agent token, the endpoint refuses a cookie", async () => {
    const { token, mcpUrl } = await createToken(id, "write", "door");
    const withToken = await api(filesUrl(id, "", { path: "." }), { headers: { Authorization: `Bearer ${token}` } });
    expect(withToken.status).toBe(401);
    const withCookie = await api(new URL(mcpUrl).pathname, {
      method: "POST",
      headers: {
        Cookie: await ownerCookie(),
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(withCookie.status).toBe(401);
    expect(((await withCookie.json()) as { code: string }).code).toBe("AGENT_TOKEN_REFUSED");
    expect(withCookie.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("of workspace A is refused on workspace B", async () => {
    const { token } = await createToken(id, "write", "a-only");
    const otherUrl = new URL(`/mcp/workspaces/${other}`, (await createToken(other, "read", "b")).mcpUrl).toString();
    await expect(connect(otherUrl, token)).rejects.toThrow(/AGENT_TOKEN_REFUSED/);
    // A token-shaped string naming B but made up is refused by B itself.
    await expect(connect(otherUrl, `cide_${other}_${"0".repeat(64)}`)).rejects.toThrow(/AGENT_TOKEN_REFUSED/);
  });

  it("refused by the workspace with a large body: answered 401, and the next requests are answered too", async () => {
    // The workspace reads a refused body it could read rather than cancel it (under vite dev a body left
    // unread can break the next request on the connection): each refusal, and the owner's next request, answer.
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(2 << 20) } });
    for (let i = 0; i < 3; i++) {
      const refusedCall = await api(`/mcp/workspaces/${id}`, {
        method: "POST",
        headers: {
          Authorization: `Bearer cide_${id}_${"0".repeat(64)}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body,
      });
      expect(refusedCall.status, await refusedCall.clone().text()).toBe(401);
      expect(((await refusedCall.json()) as { code: string }).code).toBe("AGENT_TOKEN_REFUSED");
      const list = await ownerApi(`/api/workspaces/${id}/agent-tokens`);
      expect(list.status, await list.clone().text()).toBe(200);
    }
  });
});

describe("tools", () => {
  let writer: Client;
  let reader: Client;

  beforeAll(async () => {
    const write = await createToken(id, "write", "writer");
    writer = await connect(write.mcpUrl, write.token);
    const read = await createToken(id, "read", "reader");
    reader = await connect(read.mcpUrl, read.token);
  });

  it("lists the tools of each scope", async () => {
    const all = (await writer.listTools()).tools.map((t) => t.name).sort();
    expect(all).toEqual(
      [
        "edit_file",
        "git_diff",
        "git_status",
        "list_directory",
        "list_previews",
        "list_terminals",
        "read_file",
        "read_terminal",
        "run_command",
        "search",
        "send_terminal_input",
        "write_file",
      ].sort(),
    );
    const readOnly = (await reader.listTools()).tools.map((t) => t.name);
    expect(readOnly).not.toContain("run_command");
    expect(readOnly).not.toContain("write_file");
    expect(readOnly).toContain("read_file");
  });

  it("runs a command in /workspace and answers its exit code", async () => {
    const { text, isError } = await call(writer, "run_command", { command: "pwd; echo out; echo err >&2; exit 3" });
    expect(isError).toBe(false);
    expect(text).toContain("/workspace\nout\nerr");
    expect(text).toContain("Exit code 3.");
    const sub = await call(writer, "run_command", { command: "mkdir -p sub && cd sub && pwd" });
    expect(sub.text).toContain("/workspace/sub");
    const inSub = await call(writer, "run_command", { command: "pwd", cwd: "sub" });
    expect(inSub.text).toContain("/workspace/sub\n");
    // A folder that is not there, or not a folder, runs nothing and says so.
    const missing = await call(writer, "run_command", { command: "touch ran-in-missing", cwd: "nowhere" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^FILE_NOT_FOUND/);
    await call(writer, "run_command", { command: "echo x > sub/file" });
    const notFolder = await call(writer, "run_command", { command: "touch ran-in-file", cwd: "sub/file" });
    expect(notFolder.text).toMatch(/^NOT_A_DIRECTORY/);
    expect((await call(writer, "run_command", { command: "ls -d ran-in-* 2>/dev/null | wc -l" })).text).toMatch(/^0\n/);
  });

  it("runs each command in a login shell that read the profile as it is now", async () => {
    const profile = (value: string) =>
      shell(
        container,
        `printf 'echo profile says hi\\nexport FROM_PROFILE=${value}\\n' > /etc/profile.d/zz-mcp-test.sh`,
      );
    profile("one");
    try {
      expect((await call(writer, "run_command", { command: 'echo "[$FROM_PROFILE]"' })).text).toContain(
        "profile says hi\n[one]\n",
      );
      // The agent started the next shell ahead, with this profile; a change since is seen all the same.
      profile("second");
      expect((await call(writer, "run_command", { command: 'echo "[$FROM_PROFILE]"' })).text).toContain("[second]\n");
      // What the profile prints comes before the folder check's answer, which is still understood.
      expect((await call(writer, "run_command", { command: "true", cwd: "nowhere" })).text).toMatch(/^FILE_NOT_FOUND/);
    } finally {
      shell(container, "rm -f /etc/profile.d/zz-mcp-test.sh");
    }
  });

  it("edits a file, and the files API and the change stream see it", async () => {
    const controller = new AbortController();
    const watch = await ownerApi(filesUrl(id, "/watch"), { signal: controller.signal });
    const events = (watch.body as ReadableStream<Uint8Array>).getReader();
    let stream = "";
    const until = async (predicate: () => boolean) => {
      while (!predicate()) {
        const next = await events.read();
        if (next.done) throw new Error(`stream ended: ${stream}`);
        stream += new TextDecoder().decode(next.value);
      }
    };
    try {
      await until(() => stream.includes("event: ready"));
      expect(
        (await call(writer, "write_file", { path: "src/app.ts", content: "const a = 1;\nconst b = 2;\n" })).text,
      ).toMatch(/Wrote 26 bytes/);
      const edited = await call(writer, "edit_file", { path: "src/app.ts", oldText: "b = 2", newText: "b = 3" });
      expect(edited).toEqual({ text: "Replaced 1 occurrence in src/app.ts.", isError: false });
      const content = await ownerApi(filesUrl(id, "/content", { path: "src/app.ts" }));
      expect(await content.text()).toBe("const a = 1;\nconst b = 3;\n");
      await until(() => /event: changes\ndata: .*"src\/app\.ts"/.test(stream));

      // An ambiguous or missing match changes nothing.
      const ambiguous = await call(writer, "edit_file", { path: "src/app.ts", oldText: "const", newText: "let" });
      expect(ambiguous.isError).toBe(true);
      expect(ambiguous.text).toMatch(/^EDIT_AMBIGUOUS: oldText occurs 2 times/);
      const missing = await call(writer, "edit_file", { path: "src/app.ts", oldText: "nowhere", newText: "x" });
      expect(missing.text).toMatch(/^EDIT_NO_MATCH/);
      expect(await (await ownerApi(filesUrl(id, "/content", { path: "src/app.ts" }))).text()).toBe(
        "const a = 1;\nconst b = 3;\n",
      );
      // read_file: whole and a range.
      expect((await call(writer, "read_file", { path: "src/app.ts" })).text).toBe("const a = 1;\nconst b = 3;\n");
      const range = await call(reader, "read_file", { path: "src/app.ts", startLine: 2, endLine: 2 });
      expect(range.text).toBe("const b = 3;\n\n[src/app.ts: lines 2-2 of 2]");
      expect((await call(reader, "list_directory", { path: "src" })).text).toBe("app.ts  26 bytes");
      // A file without a final newline reads back as it is.
      await call(writer, "write_file", { path: "src/bare.txt", content: "no newline" });
      expect((await call(reader, "read_file", { path: "src/bare.txt" })).text).toBe("no newline");
    } finally {
      controller.abort();
    }
  });

  it("searches with ripgrep and shows git status and diff", async () => {
    await putFile(id, "notes/todo.md", "first line\nfind the needle here\n");
    const found = await call(reader, "search", { query: "needle" });
    expect(found.text).toBe("notes/todo.md:2:10: find the needle here");
    expect((await call(reader, "search", { query: "[", regex: true })).text).toMatch(/^INVALID_SEARCH/);

    expect((await call(reader, "git_status")).text).toContain('"repository": false');
    shell(
      container,
      "cd /workspace && git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm init",
    );
    await call(writer, "edit_file", { path: "notes/todo.md", oldText: "needle", newText: "pin" });
    const status = await call(reader, "git_status");
    expect(status.text).toContain("notes/todo.md");
    const diff = await call(reader, "git_diff", { path: "notes/todo.md" });
    expect(diff.text).toContain("-find the needle here\n+find the pin here");
  });

  it("reads a person's terminal and types into it", async () => {
    const terminal = await openTerminalSocket(id, "shared");
    try {
      const mark = marker();
      terminal.type(`${mark.command}\r`);
      await terminal.waitFor(mark.pattern);
      const listed = await call(reader, "list_terminals");
      expect(listed.text).toContain('"name": "shared"');
      const screen = await call(reader, "read_terminal", { name: "shared" });
      expect(screen.text).toMatch(mark.pattern);

      // The agent types; the person's terminal shows it.
      const typed = marker();
      expect((await call(writer, "send_terminal_input", { name: "shared", text: typed.command })).isError).toBe(false);
      await terminal.waitFor(typed.pattern);
      expect((await call(reader, "read_terminal", { name: "nosuch" })).text).toMatch(/^NOT_FOUND/);
    } finally {
      terminal.ws.close();
    }
  });

  it("lists previews with a fresh owner grant", async () => {
    await call(writer, "run_command", {
      command: "nohup python3 -m http.server 8123 --bind 0.0.0.0 >/dev/null 2>&1 &",
    });
    // Listed once it listens: python's start took over a second once on the loaded 2-core machine.
    const preview = await waitFor("port 8123 among the previews", async () => {
      const { text } = await call(reader, "list_previews");
      // "Nothing listens..." until it does.
      if (!text.startsWith("[")) return undefined;
      return (JSON.parse(text) as { port: number; url: string }[]).find((p) => p.port === 8123);
    });
    expect(preview?.url).toMatch(new RegExp(`^http://8123-${id}-[a-z0-9]+\\.`));
    // The grant is an owner's pane grant (5 minutes), not a share link.
    const shares = (await (await ownerApi(`/api/workspaces/${id}/previews/8123/shares`)).json()) as {
      shares: unknown[];
      owner: { url: string }[];
    };
    expect(shares.shares).toEqual([]);
    expect(shares.owner.map((o) => o.url)).toContain(preview?.url);
  });

  it("refuses write tools to a read token, and logs it", async () => {
    const before = (await activity()).entries.at(-1)?.id ?? 0;
    const refused = await call(reader, "write_file", { path: "x.txt", content: "x" });
    expect(refused).toEqual({ isError: true, text: expect.stringMatching(/Tool write_file not found/) });
    expect((await call(reader, "read_file", { path: "x.txt" })).text).toMatch(/^FILE_NOT_FOUND/);
    const entries = (await activity(before)).entries;
    expect(entries.find((e) => e.tool === "write_file")).toMatchObject({ outcome: "refused", tokenName: "reader" });
  });

  it("keeps paths inside /workspace, symbolic links included", async () => {
    for (const path of ["../etc/passwd", "/etc/passwd"]) {
      expect((await call(reader, "read_file", { path })).text).toMatch(/^INVALID_PATH/);
    }
    shell(container, "ln -sfn /etc /workspace/out && ln -sfn /etc/hostname /workspace/host");
    expect((await call(reader, "read_file", { path: "out/passwd" })).text).toMatch(/^PATH_OUTSIDE_WORKSPACE/);
    expect((await call(reader, "read_file", { path: "host" })).text).toMatch(/^PATH_OUTSIDE_WORKSPACE/);
    expect((await call(reader, "list_directory", { path: "out" })).text).toMatch(/^PATH_OUTSIDE_WORKSPACE/);
    expect((await call(writer, "write_file", { path: "out/evil", content: "x" })).text).toMatch(
      /^PATH_OUTSIDE_WORKSPACE/,
    );
    expect((await call(writer, "edit_file", { path: "host", oldText: "a", newText: "b" })).text).toMatch(
      /^PATH_OUTSIDE_WORKSPACE/,
    );
    expect((await call(writer, "run_command", { command: "pwd", cwd: "out" })).text).toMatch(/^PATH_OUTSIDE_WORKSPACE/);
    expect(shell(container, "test -e /etc/evil && echo yes || echo no").trim()).toBe("no");
  });

  it("cuts an oversized output and says so", async () => {
    const { text } = await call(writer, "run_command", { command: "seq 1 200000" });
    expect(text).toContain("\n200000\n");
    expect(text).not.toContain("\n1\n2\n3\n");
    expect(text).toMatch(/\[output truncated: 1288895 bytes in all, only the last 30000 are shown/);
  });

  it("kills a command that runs too long", async () => {
    const { text } = await call(writer, "run_command", {
      command: "sleep 30 & echo child $!; trap '' TERM; sleep 60",
      timeoutSeconds: 2,
    });
    expect(text).toMatch(/Killed after the 2 s timeout \(exit code 137\)/);
    const child = /child (\d+)/.exec(text)?.[1];
    // timeout signals the command's whole process group: the background sleep is gone too.
    // (A killed process with no parent left to reap it stays a zombie: that counts as gone.)
    const state = shell(container, `ps -o stat= -p ${child} || true`).trim();
    expect(state === "" || state.startsWith("Z"), `process state "${state}"`).toBe(true);
  });

  it("logs every call with its token, tool, arguments and outcome", async () => {
    const before = (await activity()).entries.at(-1)?.id ?? 0;
    await call(writer, "run_command", { command: "echo logged" });
    await call(reader, "read_file", { path: "missing.txt" });
    const entries = (await activity(before)).entries;
    expect(entries).toEqual([
      expect.objectContaining({ tokenName: "writer", tool: "run_command", summary: "echo logged", outcome: "ok" }),
      expect.objectContaining({
        tokenName: "reader",
        tool: "read_file",
        summary: 'path="missing.txt"',
        outcome: "error",
      }),
    ]);
    const list = (await (await ownerApi(`/api/workspaces/${id}/agent-tokens`)).json()) as AgentTokenList;
    expect(list.tokens.find((t) => t.name === "reader")?.lastUsedAt).not.toBeNull();
  });
});

describe("ending a token", () => {
  it("revoked: refused at once, and its call in flight ends", async () => {
    const created = await createToken(id, "write", "revoked");
    const client = await connect(created.mcpUrl, created.token);
    expect((await call(client, "run_command", { command: "true" })).isError).toBe(false);
    // Settled into a value at once: it fails while the test is still revoking, before anything awaits it.
    const running = call(client, "run_command", { command: "echo started > /workspace/long.txt; sleep 61" }).then(
      () => new Error("the call in flight was not ended"),
      (error: unknown) => error,
    );
    await waitForFile("long.txt");
    const revoked = await ownerApi(`/api/workspaces/${id}/agent-tokens/${created.id}`, { method: "DELETE" });
    expect(revoked.status).toBe(204);
    expect(String(await running)).toMatch(/AGENT_TOKEN_REFUSED/);
    await expect(call(client, "list_terminals")).rejects.toThrow(/AGENT_TOKEN_REFUSED/);
    // Its command was ended with it ("6[1]" does not match the shell running pgrep; a zombie has no command line).
    await waitUntil(
      () => shell(container, "pgrep -f 'sleep 6[1]' >/dev/null && echo running || echo ended").trim() === "ended",
    );
    const again = await ownerApi(`/api/workspaces/${id}/agent-tokens/${created.id}`, { method: "DELETE" });
    expect(again.status).toBe(404);
  });

  it("expired: refused, and its call in flight ends when it expires", async () => {
    const created = await createToken(id, "write", "expiring");
    const client = await connect(created.mcpUrl, created.token);
    const expire = (inMs: number) =>
      ownerApi(`/api/workspaces/${id}/agent-tokens/${created.id}/expire`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ inMs }),
      });
    expect((await expire(4000)).status).toBe(204);
    await expect(call(client, "run_command", { command: "sleep 45" })).rejects.toThrow(/AGENT_TOKEN_REFUSED/);
    await expect(call(client, "list_terminals")).rejects.toThrow(/AGENT_TOKEN_REFUSED/);
    const listed = await ownerApi(`/api/workspaces/${id}/agent-tokens`);
    expect(listed.status, await listed.clone().text()).toBe(200);
    const list = (await listed.json()) as AgentTokenList;
    expect(list.tokens.map((t) => t.id)).not.toContain(created.id);
  });
});

/** Polls until `check` holds (a failure shows as the test's timeout). */
async function waitUntil(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 100));
}

async function waitForFile(path: string): Promise<void> {
  for (;;) {
    const response = await ownerApi(filesUrl(id, "/stat", { path }));
    if (response.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
