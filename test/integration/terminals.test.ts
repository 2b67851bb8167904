import { describe, expect, inject, it } from "vitest";
import { FLOW_WINDOW_BYTES, type TerminalInfo } from "../../protocol/terminal";
import { api } from "../support/api";
import { createWorkspace, ownerApi, ownerCookie } from "../support/session";
import { marker, openTerminalSocket } from "../support/terminal-client";
import { upgradeAnswer } from "../support/upgrades";
import { accessUser } from "../support/users";

/** The headers of the owner's WebSocket upgrades: the session and the app's origin. */
async function ownerHeaders(): Promise<Record<string, string>> {
  return { Cookie: await ownerCookie(), Origin: inject("baseUrl") };
}

async function list(id: string): Promise<TerminalInfo[]> {
  const response = await ownerApi(`/api/workspaces/${id}/terminals`);
  expect(response.status).toBe(200);
  return (await response.json()) as TerminalInfo[];
}

describe("terminal WebSocket", () => {
  it("says the terminal ended when its shell exits, but only asks for a reconnect when tmux detaches", async () => {
    const id = await createWorkspace();
    const detached = await openTerminalSocket(id, "detached");
    detached.type("tmux detach-client\r");
    // The session is still there: the page reconnects and finds it.
    expect((await detached.closed).code).toBe(1011);
    expect(detached.messages).not.toContainEqual(expect.objectContaining({ type: "exit" }));
    const back = await openTerminalSocket(id, "detached");
    back.type("exit\r");
    expect((await back.closed).code).toBe(1000);
    expect(back.messages).toContainEqual({ type: "exit", code: 0 });
  });

  it("runs a root shell in /workspace with TERM=xterm-256color", async () => {
    const id = await createWorkspace();
    const term = await openTerminalSocket(id, "main");
    expect(term.messages[0]).toEqual({ type: "ready" });
    term.type('echo "who=$(id -u) dir=$(pwd) term=$TERM"\r');
    const out = await term.waitFor(/^who=\d+ dir=\S+ term=\S+$/m);
    expect(out.split("\n")).toContain("who=0 dir=/workspace term=xterm-256color");
    term.ws.close();
  });

  it("follows resize messages (stty size shows one row less for the tmux status line)", async () => {
    const id = await createWorkspace();
    const term = await openTerminalSocket(id, "main", { cols: 90, rows: 25 });
    // tmux applies a size asynchronously: ask until the answer shows, as a line of its own.
    const showsSize = (size: string) =>
      expect
        .poll(
          async () => {
            term.type("stty size\r");
            return (await term.screen()).split("\n");
          },
          { timeout: 60_000, interval: 500 },
        )
        .toContain(size);
    await showsSize("24 90");
    term.resize(101, 33);
    await showsSize("32 101");
    term.ws.close();
  });

  it("ignores malformed text frames without closing the terminal", async () => {
    const id = await createWorkspace();
    const term = await openTerminalSocket(id, "main");
    for (const frame of ["not json", "{}", "[1,2]", "null", '{"type":"resize","cols":"wide"}', '{"type":"nope"}']) {
      term.ws.send(frame);
    }
    const { command, pattern } = marker();
    term.type(`${command}\r`);
    await term.waitFor(pattern);
    expect(term.ws.readyState).toBe(term.ws.OPEN);
    term.ws.close();
  });

  it("keeps the shell running after the socket closes and reattaches to it", async () => {
    const id = await createWorkspace();
    const first = await openTerminalSocket(id, "keep");
    const { command, pattern } = marker();
    first.type(`export KEPT=yes-$((20+22)); echo "shell=$$"; ${command}\r`);
    const shellBefore = /^shell=(\d+)$/m.exec(await first.waitFor(pattern))?.[1];
    expect(shellBefore).toMatch(/^\d+$/);
    first.ws.close();
    await first.closed;
    const second = await openTerminalSocket(id, "keep");
    // The same shell process, with what was set in it.
    second.type('echo "kept=$KEPT shell=$$"\r');
    const lines = (await second.waitFor(/^kept=\S* shell=\d+$/m)).split("\n");
    expect(lines).toContain(`kept=yes-42 shell=${shellBefore}`);
    second.ws.close();
  });

  it("stops sending while output is not acknowledged, and Ctrl+C still reaches the shell", async () => {
    const id = await createWorkspace();
    const term = await openTerminalSocket(id, "flood");
    term.ws.send(JSON.stringify({ type: "ack", bytes: 0 }));
    term.type("yes flood-line-of-text\r");
    await term.waitFor(/^flood-line-of-text\nflood-line-of-text$/m);
    // Without acknowledgements the server stops once it has sent just over
    // one window (it checks before each read; a slow moment can take a while).
    await expect.poll(() => term.received(), { timeout: 30_000, interval: 100 }).toBeGreaterThan(FLOW_WINDOW_BYTES);
    // Let a chunk already on its way arrive: wait until the count holds still.
    const stalled = await settled(() => term.received());
    expect(stalled).toBeLessThan(FLOW_WINDOW_BYTES + 256 * 1024);
    await new Promise((r) => setTimeout(r, 1000));
    expect(term.received()).toBe(stalled);
    // Acknowledging lets output flow again.
    term.ws.send(JSON.stringify({ type: "ack", bytes: stalled }));
    await expect.poll(() => term.received(), { timeout: 30_000, interval: 100 }).toBeGreaterThan(stalled);
    // Ctrl+C stops `yes`; keep acknowledging until the prompt is back.
    term.type("\x03");
    const { command, pattern } = marker();
    const acking = setInterval(() => term.ws.send(JSON.stringify({ type: "ack", bytes: term.received() })), 50);
    try {
      term.type(`${command}\r`);
      await term.waitFor(pattern, 30_000);
    } finally {
      clearInterval(acking);
    }
    expect(term.ws.readyState).toBe(term.ws.OPEN);
    term.ws.close();
  });

  it("passes tmux copies to the browser's clipboard as OSC 52", async () => {
    const id = await createWorkspace();
    const term = await openTerminalSocket(id, "main");
    // What tmux does on a mouse selection in copy mode: set a buffer and tell the outer terminal.
    term.type("tmux set-buffer -w copied-$((40+2))\r");
    // An escape sequence, not text on the screen: read from the byte stream, whole (up to its BEL or ST).
    const esc = "\x1b";
    const end = `(?:\x07|${esc}\\\\)`;
    const encoded = Buffer.from("copied-42").toString("base64");
    const stream = await term.waitForBytes(new RegExp(`${esc}\\]52;[a-z]*;${encoded}${end}`));
    // Every clipboard write tmux sent, decoded: what it copied, as the shell computed it.
    const osc52 = new RegExp(`${esc}\\]52;[a-z]*;([A-Za-z0-9+/=]*)${end}`, "g");
    const copied = [...stream.matchAll(osc52)].map((m) => Buffer.from(m[1] as string, "base64").toString());
    expect(copied).toContain("copied-42");
    term.ws.close();
  });

  it("answers ping with pong", async () => {
    const id = await createWorkspace();
    const term = await openTerminalSocket(id, "main");
    term.ws.send(JSON.stringify({ type: "ping" }));
    await expect.poll(() => term.messages).toContainEqual({ type: "pong" });
    term.ws.close();
  });

  it("refuses an invalid terminal name with 400", async () => {
    const id = await createWorkspace();
    for (const bad of ["Main", "-x", "a.b", "a:b", "x".repeat(64), "%20", "a%2Fb"]) {
      const response = await ownerApi(`/ws/workspaces/${id}/terminals/${bad}`);
      expect(response.status, bad).toBe(400);
      expect(await response.json()).toMatchObject({ code: "INVALID_TERMINAL_NAME", message: expect.any(String) });
      expect(await upgradeAnswer(`/ws/workspaces/${id}/terminals/${bad}`, await ownerHeaders()), bad).toBe(400);
    }
  });

  it("refuses a request without a WebSocket upgrade with 426", async () => {
    const id = await createWorkspace();
    const response = await ownerApi(`/ws/workspaces/${id}/terminals/main`);
    expect(response.status).toBe(426);
    expect(await response.json()).toMatchObject({ code: "UPGRADE_REQUIRED", message: expect.any(String) });
  });

  it("refuses an invalid workspace id with 400", async () => {
    const response = await ownerApi("/ws/workspaces/Not_An_Id/terminals/main");
    expect(response.status).toBe(400);
    expect(await upgradeAnswer("/ws/workspaces/Not_An_Id/terminals/main", await ownerHeaders())).toBe(400);
  });
});

describe("GET and DELETE /api/workspaces/{id}/terminals", () => {
  it("lists terminals with what runs in them, and ends one", async () => {
    const id = await createWorkspace();
    const shell = await openTerminalSocket(id, "idle");
    const busy = await openTerminalSocket(id, "busy");
    busy.type("sleep 300\r");
    await expect
      .poll(async () => (await list(id)).find((t) => t.name === "busy")?.command, { timeout: 15_000 })
      .toBe("sleep");
    const terminals = await list(id);
    expect(terminals.map((t) => t.name)).toEqual(["idle", "busy"]);
    expect(terminals).toContainEqual({ name: "busy", command: "sleep", busy: true });
    expect(terminals.find((t) => t.name === "idle")?.busy).toBe(false);

    const ended = await ownerApi(`/api/workspaces/${id}/terminals/busy`, { method: "DELETE" });
    expect(ended.status).toBe(204);
    // The socket learns that its terminal ended.
    expect((await busy.closed).code).toBe(1000);
    expect(busy.messages).toContainEqual({ type: "exit", code: expect.any(Number) });
    expect((await list(id)).map((t) => t.name)).toEqual(["idle"]);

    const again = await ownerApi(`/api/workspaces/${id}/terminals/busy`, { method: "DELETE" });
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ code: "NOT_FOUND" });
    const bad = await ownerApi(`/api/workspaces/${id}/terminals/Bad.Name`, { method: "DELETE" });
    expect(bad.status).toBe(400);
    shell.ws.close();
  });

  it("lists nothing for a workspace whose container never started", async () => {
    const id = await createWorkspace();
    expect(await list(id)).toEqual([]);
  });
});

describe("workspace isolation", () => {
  it("keeps a terminal of one workspace out of another", async () => {
    const a = await createWorkspace("a");
    const b = await createWorkspace("b");
    const inA = await openTerminalSocket(a, "secret");
    inA.type("export ONLY_IN_A=$((40+2)); echo ok-$((1+1))\r");
    await inA.waitFor(/ok-2/);

    expect((await list(a)).map((t) => t.name)).toContain("secret");
    expect((await list(b)).map((t) => t.name)).not.toContain("secret");
    const del = await ownerApi(`/api/workspaces/${b}/terminals/secret`, { method: "DELETE" });
    expect(del.status).toBe(404);

    // The same name in workspace b is a different shell in a different container.
    const inB = await openTerminalSocket(b, "secret");
    inB.type('echo "a=[$ONLY_IN_A] host=$(hostname)"\r');
    const out = await inB.waitFor(/^a=\[\d*\] host=\S+$/m);
    expect(out).toMatch(/^a=\[\] host=/m);
    inA.type('echo "host=$(hostname)"\r');
    const hostA = /^host=(\S+)$/m.exec(await inA.waitFor(/^host=\S+$/m))?.[1];
    const hostB = /^a=\[\] host=(\S+)$/m.exec(out)?.[1];
    expect(hostA).toBeTruthy();
    expect(hostA).not.toBe(hostB);
    inA.ws.close();
    inB.ws.close();
  });

  it("keeps another user away from the owner's terminals", async () => {
    const id = await createWorkspace();
    const owner = await openTerminalSocket(id, "private");
    const mallory = await accessUser("mallory@example.com");
    expect((await api(`/api/workspaces/${id}/terminals`, { headers: mallory })).status).toBe(404);
    const del = await api(`/api/workspaces/${id}/terminals/private`, { method: "DELETE", headers: mallory });
    expect(del.status).toBe(404);
    expect(await upgradeAnswer(`/ws/workspaces/${id}/terminals/private`, mallory)).toBe(404);
    // The owner's terminal is untouched.
    expect((await list(id)).map((t) => t.name)).toEqual(["private"]);
    expect(owner.ws.readyState).toBe(owner.ws.OPEN);
    owner.ws.close();
  });
});

/** The value once it has not changed for half a second (a count that stopped growing). */
async function settled(read: () => number, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let value = read();
  let since = Date.now();
  while (Date.now() - since < 500) {
    if (Date.now() > deadline) throw new Error(`still changing after ${timeoutMs} ms (at ${value})`);
    await new Promise((r) => setTimeout(r, 100));
    const next = read();
    if (next !== value) {
      value = next;
      since = Date.now();
    }
  }
  return value;
}
