/**
 * Bridges a browser WebSocket to a tmux client running on a PTY in the
 * workspace's container. One tmux session per terminal name; each socket gets
 * its own tmux client (`new-session -A` attaches or creates), so the shell
 * keeps running when the socket goes away.
 */
import {
  clampSize,
  FLOW_WINDOW_BYTES,
  isShellCommand,
  MAX_COLS,
  MAX_ROWS,
  parseClientMessage,
  type TerminalInfo,
  type TerminalServerMessage,
} from "../../protocol/terminal";
import { describe } from "../errors";
import { SHELL_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import { isUnavailable, type Sandbox, type SandboxProcess } from "../sandbox/sandbox";
import { ResizePump } from "./terminal-resize";

export interface TerminalConnection {
  begin(close: (code: number, reason: string) => void): void;
  end(): void;
  /**
   * A viewer's terminal: it shows the output and takes no input. Its tmux
   * client is attached read-only and ignoring its size (so it changes
   * nothing, not even the others' layout), to a terminal that exists only;
   * keystrokes are refused before they reach it.
   */
  readOnly?: boolean;
}

/** Opens terminal `name` for a WebSocket upgrade request; the caller has checked the name. */
export async function openTerminal(
  sandbox: Sandbox,
  request: Request,
  name: string,
  /**
   * Told when the socket is bridged (with a way to close it from outside, as
   * when its session ends) and once when it is gone (open terminals count as use).
   */
  connection?: TerminalConnection,
): Promise<Response> {
  const url = new URL(request.url);
  const cols = clampSize(url.searchParams.get("cols"), MAX_COLS) ?? 80;
  const rows = clampSize(url.searchParams.get("rows"), MAX_ROWS) ?? 24;

  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  server.binaryType = "arraybuffer";
  // accept(), not hibernation: hibernating would drop the tmux client's process handle.
  server.accept();

  const abort = new AbortController();
  const readOnly = connection?.readOnly === true;
  // A viewer watches a terminal; making one would be a change.
  if (readOnly && (await sessionEnded(sandbox, name, sandbox.generation))) {
    return refuseTerminal(
      `There is no terminal "${name}" to watch: as a viewer you can see the terminals others opened, not start one.`,
      [client, server],
    );
  }
  const command = readOnly
    ? ["tmux", "attach-session", "-f", "read-only,ignore-size", "-t", `=${name}`]
    : ["tmux", "new-session", "-A", "-s", name, "-c", WORKSPACE_ROOT];
  let tmux: SandboxProcess;
  try {
    tmux = await sandbox.exec(command, {
      pty: { cols, rows },
      env: SHELL_ENV,
      cwd: WORKSPACE_ROOT,
      signal: abort.signal,
    });
  } catch (error) {
    console.error(`terminal ${name}: ${describe(error)}`);
    return refuseTerminal(`The terminal could not start: ${describe(error)}`, [client, server]);
  }
  // Every resize goes through one pump, in order (terminal-resize.ts).
  const sizes = new ResizePump((c, r) => {
    try {
      tmux.resize(c, r);
    } catch (error) {
      // The process is gone; its exit ends the bridge.
      console.warn(`terminal ${name}: resize: ${describe(error)}`);
    }
  });
  // Docker 20.10 starts exec PTYs at 0x0 whatever size was asked for.
  sizes.resize(cols, rows);

  // The container this tmux client runs in: read after the exec, which may have started it.
  const generation = sandbox.generation;
  bridge(server, tmux, sizes, abort, connection, () => sessionEnded(sandbox, name, generation), readOnly);
  send(server, { type: "ready" });
  return new Response(null, { status: 101, webSocket: client });
}

/**
 * Answers a reconnect that must not wake the workspace (`?wake=0`) while it
 * sleeps (or failed to start, `reason`): the client then waits for the user,
 * or for the workspace to wake, before connecting again.
 */
export function terminalSleeping(reason?: string): Response {
  return answerAndClose(reason ? { type: "sleeping", reason } : { type: "sleeping" }, 1000, "The workspace is asleep");
}

/**
 * Answers the upgrade, says what went wrong, and closes: the page shows the
 * message and tries again, where an HTTP error would only be a failed socket.
 */
export function refuseTerminal(message: string, pair?: [WebSocket, WebSocket]): Response {
  return answerAndClose({ type: "error", message }, 1011, "Terminal failed to start", pair);
}

/** Accepts the upgrade (unless already accepted), sends one message and closes. */
function answerAndClose(
  message: TerminalServerMessage,
  code: number,
  reason: string,
  [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket],
): Response {
  try {
    server.accept();
  } catch {
    // Already accepted by openTerminal.
  }
  send(server, message);
  server.close(code, reason);
  return new Response(null, { status: 101, webSocket: client });
}

function bridge(
  server: WebSocket,
  tmux: SandboxProcess,
  sizes: ResizePump,
  abort: AbortController,
  connection: TerminalConnection | undefined,
  ended: () => Promise<boolean>,
  readOnly: boolean,
): void {
  const stdin = tmux.stdin?.getWriter();
  const stdout = tmux.stdout?.getReader();
  let exited = false;
  let closed = false;
  const markExited = () => {
    exited = true;
    sizes.stop();
  };
  tmux.exitCode.then(markExited, markExited);

  // Flow control, on once the client sends its first ack: stop reading tmux's
  // output while more than a window of sent bytes is not yet drawn.
  let sent = 0;
  let acked = 0;
  let flowControl = false;
  let resume: (() => void) | undefined;
  const wake = () => {
    resume?.();
    resume = undefined;
  };

  // Listeners never throw: an exception would close the socket without the
  // close listener, leaving the tmux client running.
  let refusedInput = false;
  server.addEventListener("message", (event) => {
    try {
      if (typeof event.data !== "string") {
        if (!readOnly) stdin?.write(new Uint8Array(event.data as ArrayBuffer)).catch(() => {});
        else if (!refusedInput) {
          // Said once: the page shows it; later keystrokes are dropped the same way.
          refusedInput = true;
          send(server, { type: "read-only", message: "You are a viewer here: this terminal is read-only." });
        }
        return;
      }
      const message = parseClientMessage(event.data);
      if (message?.type === "resize") {
        if (!exited) sizes.resize(message.cols, message.rows);
      } else if (message?.type === "ack") {
        flowControl = true;
        acked = Math.max(acked, Math.min(message.bytes, sent));
        if (sent - acked <= FLOW_WINDOW_BYTES) wake();
      } else if (message?.type === "ping") {
        send(server, { type: "pong" });
      }
      // Anything else is ignored: a bad frame must not end the terminal.
    } catch (error) {
      console.error(`terminal message: ${describe(error)}`);
    }
  });

  connection?.begin((code, reason) => {
    send(server, { type: "error", message: reason });
    try {
      server.close(code, reason);
    } catch {}
    onGone();
  });
  const onGone = () => {
    if (!closed) connection?.end();
    closed = true;
    wake();
    // End only this tmux client; the session and its shell keep running.
    sizes.stop();
    if (!exited) abort.abort();
  };
  server.addEventListener("close", onGone);
  server.addEventListener("error", onGone);

  const forward = async () => {
    if (!stdout) return;
    while (!closed) {
      if (flowControl && sent - acked > FLOW_WINDOW_BYTES) {
        await new Promise<void>((resolve) => {
          resume = resolve;
        });
        continue;
      }
      const { value, done } = await stdout.read();
      if (done || closed) break;
      const chunk = value as Uint8Array;
      server.send(chunk);
      sent += chunk.byteLength;
    }
    if (closed) {
      await stdout.cancel().catch(() => {});
      return;
    }
    const code = await tmux.exitCode.catch(() => undefined);
    // Whether the session is gone from its container, still answering, decides,
    // not the client's exit code: when the last shell exits, the tmux server
    // exits too and its client may end without the "exited" word (or workerd
    // without its code), and a client that exits 0 may have been detached, or
    // lost its container (workerd reports a vanished exec as 0).
    if (await ended()) {
      // The session ended (its shell exited, or the tab was closed).
      send(server, { type: "exit", code: code ?? 0 });
      server.close(1000, "Terminal closed");
      return;
    }
    // The tmux client was killed (its container stopped or vanished) or
    // detached. Closing without "exit" makes the page reconnect; a vanished
    // container is then brought back from the latest snapshot, a sleeping one
    // says so.
    console.warn(`terminal: tmux client ended with ${code ?? "no exit code"}; its session is still there or unknown`);
    server.close(1011, "The terminal lost its container");
  };
  void forward().catch((error) => {
    if (closed) return;
    console.error(`terminal output: ${describe(error)}`);
    send(server, { type: "error", message: "The terminal's output failed; reconnecting may help." });
    try {
      server.close(1011, "Terminal output failed");
    } catch {}
  });
}

/**
 * Whether tmux session `name` is gone from container `generation` (see
 * {@link Sandbox.generation}) while it still answers. Asked twice when the
 * engine fails to answer: a wrong "no" turns an ended terminal into a
 * reconnect that starts a new shell. A stopped container fails at once
 * (wake: false); a frozen one (a save) is waited out a little. A container
 * started since (a removed one brought back) has no tmux server yet: its
 * "no such session" must not end a terminal that only lost its container.
 */
export async function sessionEnded(sandbox: Sandbox, name: string, generation: number): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    if (sandbox.generation !== generation) return false;
    try {
      const check = await sandbox.run(["tmux", "has-session", "-t", `=${name}`], {
        cwd: WORKSPACE_ROOT,
        env: SHELL_ENV,
        wake: false,
        waitMs: 1_000,
      });
      // 1: no such session (or no tmux server left at all), if the answer came from the same container.
      return check.exitCode === 1 && sandbox.generation === generation;
    } catch (error) {
      if (attempt >= 2 || isUnavailable(error)) return false;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

function send(server: WebSocket, message: TerminalServerMessage): void {
  try {
    server.send(JSON.stringify(message));
  } catch {}
}

/** The workspace's terminals, oldest first; none when tmux has no server. */
export async function listTerminals(sandbox: Sandbox): Promise<TerminalInfo[]> {
  const output = await sandbox.run(
    ["tmux", "list-sessions", "-F", "#{session_id} #{session_name} #{pane_current_command}"],
    { cwd: WORKSPACE_ROOT, env: SHELL_ENV, wake: false },
  );
  // tmux exits 1 with "no server running" when no terminal exists yet.
  if (output.exitCode !== 0) return [];
  return (
    output.stdout
      .split("\n")
      .map((line) => line.split(" "))
      .filter((parts) => parts.length >= 2)
      // Session ids ($0, $1, ...) grow with each new session: oldest first.
      .map(([id = "", name, ...command]) => ({
        order: Number(id.slice(1)),
        name: name as string,
        command: command.join(" "),
      }))
      .sort((a, b) => a.order - b.order)
      .map(({ name, command }) => ({ name, command, busy: !isShellCommand(command) }))
  );
}

/** Ends terminal `name` (its tmux session and everything running in it); false when there is none. */
export async function endTerminal(sandbox: Sandbox, name: string): Promise<boolean> {
  // "=name" matches the session name exactly rather than as a prefix.
  const output = await sandbox.run(["tmux", "kill-session", "-t", `=${name}`], { cwd: WORKSPACE_ROOT, wake: false });
  return output.exitCode === 0;
}
