/**
 * The workspace's container as every feature sees it: the only module that
 * touches `ctx.container`. It owns one policy for "wait until exec works"
 * and for waking a stopped container, runs commands with or without a PTY
 * and with streamed stdin/stdout, and reaches TCP ports inside.
 *
 * Features (terminals, files, previews, archives) use {@link Sandbox}; the
 * lifecycle alone also uses {@link SandboxControl} (start, stop, snapshot).
 */
import { ErrorCode } from "../../protocol/errors";
import { AppError, describe } from "../errors";
import { AgentClient, type AgentConnection, AgentUnavailableError, HELLO_TIMEOUT_MS } from "../resident/agent-client";
import { AGENT_SCRIPT } from "../resident/agent-script";
import { connectAgentOverTcp, connectionAfter, type TcpOutcome } from "../resident/agent-tcp";
import type { ArchiveGatewayProps } from "./archive-gateway";
import { ARCHIVE_HOST } from "./archive-transfers";
import { WORKSPACE_ROOT } from "./environment";

/** How long an exec waits, by default, for a container that runs but does not answer exec yet. */
export const EXEC_WAIT_MS = 45_000;

export interface ExecOptions {
  /** Working directory; "/" unless given. */
  cwd?: string;
  /** "uid:gid"; root unless given. */
  user?: string;
  /** Added to the image's environment. */
  env?: Readonly<Record<string, string>>;
  /** A stream to pump into stdin, or "pipe" for a writable {@link SandboxProcess.stdin}. */
  stdin?: ReadableStream<Uint8Array> | "pipe";
  stdout?: "pipe" | "ignore";
  stderr?: "pipe" | "ignore" | "combined";
  /** Runs on a pseudo-terminal of this size (stdout then carries the terminal's bytes). */
  pty?: { cols: number; rows: number };
  /**
   * Aborting detaches this exec: its client connection ends, and a tmux
   * client on a PTY exits with it. It does not signal a process (see kill()).
   */
  signal?: AbortSignal;
  /**
   * True (the default): a stopped or sleeping container is started first, and
   * a start in progress is waited for. False: a container that does not run
   * fails at once with CONTAINER_UNAVAILABLE (pollers that must not wake it).
   */
  wake?: boolean;
  /** How long to wait for a running container to answer exec (starting, or frozen by a save). */
  waitMs?: number;
}

/**
 * A process in the container: `stdin` is writable when started with
 * `stdin: "pipe"`; `exitCode` settles when it ends (under local workerd, with
 * 0 also when its container went away under it); `resize()` for a PTY. No
 * kill(): see {@link SpawnedProcess}.
 */
export type SandboxProcess = Omit<ExecProcess, "kill" | "pid">;

/** A long-lived process from {@link Sandbox.spawn}: one that can be ended on its own. */
export interface SpawnedProcess extends SandboxProcess {
  /**
   * Signals this process and its direct children, and nothing else in the
   * container. Resolves once the signal was sent (not when it exited: await
   * `exitCode` for that). Never ExecProcess.kill(): under local workerd that
   * signals the whole container.
   */
  kill(signal?: "TERM" | "INT" | "KILL" | "HUP"): Promise<void>;
}

/** A command from {@link Sandbox.command} or {@link Sandbox.shell}: its output (stderr into stdout) and its exit code. */
export interface CommandProcess {
  output: ReadableStream<Uint8Array>;
  /** A signal's end reads as the shell's 128 + its number. */
  exitCode: Promise<number>;
}

export interface CommandOptions {
  /** Added to the image's environment. */
  env?: Readonly<Record<string, string>>;
  /** Aborting it ends the command and what it started (TERM). */
  signal?: AbortSignal;
}

export interface ShellOptions {
  /** Added to the image's environment. */
  env?: Readonly<Record<string, string>>;
  /** Seconds until its whole process group gets TERM (exit code 124, as timeout(1) answers). */
  timeoutSeconds: number;
  /** After the TERM, a shell still running gets KILL this much later (exit code 137). */
  killAfterSeconds: number;
  /** Aborting it ends the shell and what it started (TERM). */
  signal?: AbortSignal;
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** What features get: commands and ports in the container. */
export interface Sandbox {
  /** Whether a container runs (from start() on, before it answers exec). */
  readonly running: boolean;
  /**
   * Which container this is: it grows with each start. What a process saw
   * (its tmux session) is about the container it ran in; an answer from one
   * started since says nothing about it.
   */
  readonly generation: number;
  /** Starts a command; its stdio are streams. For commands that end by themselves or on EOF. */
  exec(argv: string[], options?: ExecOptions): Promise<SandboxProcess>;
  /** Runs a command to completion: exit code and its whole stdout and stderr as text. */
  run(argv: string[], options?: ExecOptions): Promise<RunResult>;
  /** Runs a command to completion: its stdout, or an Error with its stderr when it exits non-zero. */
  stdout(argv: string[], options?: ExecOptions): Promise<string>;
  /** Starts a long-lived command that can be killed on its own (language servers, searches, watchers). */
  spawn(argv: string[], options?: ExecOptions): Promise<SpawnedProcess>;
  /**
   * Runs a command that ends by itself in "/", its output streamed as it
   * comes: through the resident agent when it runs (no process start per
   * command), else by its own exec. It wakes the container.
   */
  command(argv: string[], options?: CommandOptions): Promise<CommandProcess>;
  /**
   * `timeout --kill-after=K T bash -lc SCRIPT bash ...ARGS` in "/", stderr
   * into stdout, its output streamed as it comes: through the resident
   * agent when it runs (a login shell it started ahead, its profile already
   * read: no process start but the command's own), else by its own exec.
   * It wakes the container.
   */
  shell(script: string, args: string[], options: ShellOptions): Promise<CommandProcess>;
  /** A TCP port inside the container, for fetch() (HTTP or a WebSocket upgrade). It does not wake the container. */
  tcpPort(port: number): Fetcher;
  /** Starts or wakes the container when it does not run, or waits for its start in progress. */
  wake(): Promise<void>;
}

/** What the lifecycle alone uses on top of {@link Sandbox}. */
export interface SandboxControl extends Sandbox {
  /** The image wrangler.jsonc names "sandbox". */
  readonly image: string;
  /** Starts a container (returns at once; it answers exec a moment later). */
  start(options: ContainerStartupOptions): void;
  /** Settles when the container stops: rejects when it failed or was removed. */
  monitor(): Promise<void>;
  destroy(): Promise<void>;
  /** A snapshot of the whole root filesystem (the container is frozen while it is taken). */
  snapshot(): Promise<{ id: string }>;
  setInactivityTimeout(ms: number): Promise<void>;
  /**
   * Hands the container's outbound HTTP (port 80, every address) and HTTPS
   * (port 443, every name, decrypted with the interception CA) to `outbound`.
   * Lasts until the container stops; registering again replaces it.
   */
  interceptOutbound(outbound: Fetcher): Promise<void>;
}

/** What backups use on top of {@link Sandbox}: the route of archives over HTTP (worker/sandbox/archive-transfers.ts). */
export interface ArchiveRoute {
  /**
   * Hands the container's HTTP to ARCHIVE_HOST to the ArchiveGateway
   * entrypoint. Registered before the catch-all of {@link SandboxControl.interceptOutbound}
   * (which calls it first), since a hostname registered after it never
   * receives a request; registering again replaces the handler.
   */
  interceptArchive(): Promise<void>;
  /** {@link interceptArchive} unless this container has it already. */
  routeArchives(): Promise<void>;
}

/**
 * What workerd's own error says, as a code: its container API throws plain
 * errors with no code, so this is the one place their words are read.
 *   "not-running":   exec() on a container that is not up (yet): "exec() cannot be
 *                    called on a container that is not running", "exec() requires a
 *                    running container", and "is paused" while a snapshot freezes it
 *   "not-listening": a port's fetch() when nothing listens on it in the container
 */
export function workerdFailure(error: unknown): "not-running" | "not-listening" | undefined {
  const message = describe(error);
  // "cannot exec in a stopped state": an exec that raced a stop or a delete.
  if (/not running|requires a running container|is paused|stopped state/i.test(message)) return "not-running";
  if (/not listening/i.test(message)) return "not-listening";
  return undefined;
}

export function isNotRunningError(error: unknown): boolean {
  return workerdFailure(error) === "not-running";
}

/** workerd's answer to a port's fetch() when nothing listens there (the sidecar refused the tunnel). */
export function isNotListening(error: unknown): boolean {
  return error instanceof Error && workerdFailure(error) === "not-listening";
}

/** The CONTAINER_UNAVAILABLE failure the adapter reports for a container that does not answer. */
export function isUnavailable(error: unknown): boolean {
  return error instanceof AppError && error.code === ErrorCode.CONTAINER_UNAVAILABLE;
}

/** Records the process's pid, then becomes the command (same pid, argv unchanged). */
const RECORD_PID = 'echo $$ >"$0" && exec "$@"';
/** Waits (2 s at most) for the pid file, then signals the children and the process. */
const KILL_SCRIPT = `i=0; while [ ! -s "$1" ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done
pid=$(cat "$1" 2>/dev/null) || exit 0
pkill -"$2" -P "$pid" 2>/dev/null
kill -"$2" "$pid" 2>/dev/null
exit 0`;

/**
 * Sandbox.shell without the agent: `timeout --kill-after=$1 $2 bash -lc SCRIPT bash ARGS...`, stderr into stdout.
 * Its score raised as the agent's shells raise theirs (sandbox/resident_agent.py's SHELL_BOOT): out of memory,
 * the command goes first, not the IDE's own processes.
 */
const TIMEOUT_SHELL =
  'echo 500 >/proc/self/oom_score_adj 2>/dev/null; k=$1 t=$2; shift 2; exec timeout --kill-after="$k" "$t" bash -lc "$@" 2>&1';

/** How long after a resident agent died another is started (when the container still runs). */
const AGENT_RESTART_MS = 1_000;
/** How long the connection to its port may take before its frames go over stdio instead. */
const AGENT_CONNECT_MS = 5_000;

/**
 * The adapter over `ctx.container`. `wake` starts or wakes the container
 * (the lifecycle's ensureRunning: it also waits for a start in progress).
 */
/** SIGPWR: see {@link ContainerSandbox.announceDeletion} (scripts/lib/engine-proxy.mjs knows it by this name). */
const DELETED_SIGNAL = 30;
/** A sleeping workspace's deletion, to the local sidecar (scripts/local-engine/egress-sidecar.mjs knows it). Never a preview: those are 1024 and up. */
const RELEASE_PORT = 9;
/** How long a deletion waits for that connection. */
const RELEASE_WAIT_MS = 3000;

export class ContainerSandbox implements SandboxControl, ArchiveRoute {
  /**
   * The container's resident agent (worker/resident/): files and change events
   * without a process per operation. Started with each container (see
   * start()), started again when it dies while the container runs; it never
   * wakes a container by itself.
   */
  readonly agent: AgentClient;

  /** See {@link Sandbox.generation}: counted in start(). */
  generation = 0;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly waker: () => Promise<void>,
  ) {
    this.agent = new AgentClient(() => this.launchAgent());
    this.agent.onStopped(() => {
      setTimeout(() => {
        if (this.running) this.startAgent();
      }, AGENT_RESTART_MS);
    });
  }

  /**
   * `run` and `stdout` for short commands through the resident agent (one
   * process start fewer each: the steps after a start and the IDE's git
   * commands use it), by exec when the agent cannot start. They take `cwd`,
   * `env`, `stdin` (a stream, sent whole) and `wake` (false unless given, as
   * for the pollers); anything else (a PTY, a user, a signal) goes by exec.
   */
  readonly quick: Pick<Sandbox, "run" | "stdout"> = {
    run: (argv, options) => this.runQuick(argv, options),
    stdout: async (argv, options) => {
      const { exitCode, stdout, stderr } = await this.runQuick(argv, options);
      if (exitCode !== 0) throw new Error(`${argv[0]} exited with ${exitCode}: ${stderr.trim()}`);
      return stdout;
    },
  };

  private async runQuick(argv: string[], options: ExecOptions = {}): Promise<RunResult> {
    const { cwd, env, stdin, wake = false, ...rest } = options;
    const byExec = { ...options, wake };
    if (Object.keys(rest).length > 0 || stdin === "pipe") return this.run(argv, byExec);
    if (wake) await this.wake();
    try {
      await this.agent.start();
    } catch {
      return this.run(argv, byExec);
    }
    const settings = { ...(cwd ? { cwd } : {}), ...(env ? { env } : {}), ...(stdin ? { stdin: true } : {}) };
    return this.agent.call("run", [JSON.stringify(settings), ...argv], stdin ? { body: stdin } : {});
  }

  async command(argv: string[], { env = {}, signal }: CommandOptions = {}): Promise<CommandProcess> {
    signal?.throwIfAborted();
    let viaAgent = this.running;
    if (viaAgent) await this.agent.start().catch(() => (viaAgent = false));
    if (viaAgent) {
      const stream = await this.agent.open("command", [JSON.stringify(env), ...argv], { signal });
      const exitCode = stream.result.then(({ exitCode: code }) =>
        // Python's returncode is minus the signal that ended the process.
        code < 0 ? 128 - code : code,
      );
      // A command cancelled (or its agent gone) ends its output with the reason; nobody may await its exit then.
      exitCode.catch(() => {});
      return { output: stream.body, exitCode };
    }
    const process = await this.spawn(argv, { env, stderr: "combined" });
    const stop = () => void process.kill("TERM");
    signal?.addEventListener("abort", stop, { once: true });
    const exitCode = process.exitCode.finally(() => signal?.removeEventListener("abort", stop));
    exitCode.catch(() => {});
    return { output: process.stdout as ReadableStream<Uint8Array>, exitCode };
  }

  async shell(
    script: string,
    args: string[],
    { env = {}, timeoutSeconds, killAfterSeconds, signal }: ShellOptions,
  ): Promise<CommandProcess> {
    signal?.throwIfAborted();
    let viaAgent = this.running;
    if (viaAgent) await this.agent.start().catch(() => (viaAgent = false));
    if (viaAgent) {
      const stream = await this.agent.open(
        "shell",
        [JSON.stringify(env), String(timeoutSeconds), String(killAfterSeconds), script, ...args],
        { signal },
      );
      const exitCode = stream.result.then(({ exitCode: code }) =>
        // Python's returncode is minus the signal that ended the process.
        code < 0 ? 128 - code : code,
      );
      // A command cancelled (or its agent gone) ends its output with the reason; nobody may await its exit then.
      exitCode.catch(() => {});
      return { output: stream.body, exitCode };
    }
    // stderr into stdout inside the container, so the two keep the order they were written in.
    const process = await this.spawn(
      ["sh", "-c", TIMEOUT_SHELL, "sh", String(killAfterSeconds), String(timeoutSeconds), script, "bash", ...args],
      { env, stderr: "combined" },
    );
    const stop = () => void process.kill("TERM");
    signal?.addEventListener("abort", stop, { once: true });
    const exitCode = process.exitCode.finally(() => signal?.removeEventListener("abort", stop));
    exitCode.catch(() => {});
    return { output: process.stdout as ReadableStream<Uint8Array>, exitCode };
  }

  /** Starts the agent in the background (a container that answers exec a moment later is waited for). */
  startAgent(): void {
    this.agent.start().catch((error) => console.error(`resident agent: ${describe(error)}`));
  }

  /**
   * How the agent's frames travel, for the status: undefined until one ran.
   * Once a TCP connection to an agent failed it stays "stdio": this object's
   * later agents use stdio at once.
   */
  agentTransport: "tcp" | "stdio" | undefined;

  private async launchAgent(): Promise<AgentConnection> {
    const overTcp = this.agentTransport !== "stdio";
    // wake: false: the lifecycle starts it while a start is still in progress.
    const process = await this.spawn(["python3", "-c", AGENT_SCRIPT, WORKSPACE_ROOT, ...(overTcp ? ["tcp"] : [])], {
      stdin: "pipe",
      stderr: "pipe",
      wake: false,
    });
    const { stdin, stdout, stderr } = process;
    if (!stdin || !stdout) throw new AgentUnavailableError("its exec has no stdin or stdout");
    // Its stderr carries only what went wrong (a traceback): into the log, never left to fill its pipe.
    if (stderr) {
      void (stderr as ReadableStream<Uint8Array>)
        .pipeThrough(new TextDecoderStream())
        .pipeTo(
          new WritableStream({ write: (text) => console.error(`resident agent: ${text.trimEnd().slice(0, 2000)}`) }),
        )
        .catch(() => {});
    }
    const overStdio: AgentConnection = {
      readable: stdout as ReadableStream<Uint8Array>,
      writable: stdin as WritableStream<Uint8Array>,
      exited: process.exitCode,
      kill: () => process.kill("KILL"),
    };
    if (!overTcp) {
      this.agentTransport = "stdio";
      return overStdio;
    }
    let outcome: TcpOutcome;
    try {
      outcome = await connectAgentOverTcp({
        stdin: overStdio.writable,
        stdout: overStdio.readable,
        connect: (port) => this.container.getTcpPort(port).connect(`127.0.0.1:${port}`),
        startTimeoutMs: HELLO_TIMEOUT_MS,
        connectTimeoutMs: AGENT_CONNECT_MS,
      });
    } catch (error) {
      await process.kill("KILL").catch(() => {});
      throw error;
    }
    if ("stdio" in outcome) {
      console.error(`resident agent: over stdio, since a TCP connection to it failed (${outcome.stdio})`);
    }
    this.agentTransport = "stdio" in outcome ? "stdio" : "tcp";
    return connectionAfter(outcome, overStdio);
  }

  private get container(): Container {
    const container = this.ctx.container;
    if (!container) throw new Error("This Durable Object has no container: check `containers` in wrangler.jsonc.");
    return container;
  }

  get running(): boolean {
    return this.ctx.container?.running ?? false;
  }

  wake(): Promise<void> {
    return this.waker();
  }

  get image(): string {
    const image = this.container.images.sandbox;
    if (!image) throw new Error('No image named "sandbox" in wrangler.jsonc `containers[].images`.');
    return image;
  }

  /**
   * The one "wait until exec works" policy: wake the container when asked
   * to, then retry only "not running" (a container that counts as running
   * before it accepts exec, or one frozen by a save) with backoff until
   * `waitMs`, waking it again if it stopped meanwhile. Every other error is
   * thrown at once.
   */
  async exec(argv: string[], options: ExecOptions = {}): Promise<SandboxProcess> {
    const { wake = true, waitMs = EXEC_WAIT_MS, pty, ...rest } = options;
    if (wake) await this.wake();
    const container = this.container;
    if (!container.running) throw unavailable("it is not running");
    const execOptions: ContainerExecOptions = { cwd: "/", ...rest, ...(pty ? { pty } : {}) };
    const deadline = Date.now() + waitMs;
    for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
      try {
        const process = await container.exec(argv, execOptions);
        // Its end is awaited by whoever needs it; a container removed under it
        // must not make an unread exit an uncaught rejection in the object.
        process.exitCode.catch(() => {});
        return process;
      } catch (error) {
        if (!isNotRunningError(error)) throw error;
        if (Date.now() >= deadline) throw unavailable(describe(error));
        await new Promise((resolve) => setTimeout(resolve, delay));
        if (!container.running) {
          if (!wake) throw unavailable("it stopped");
          await this.wake();
        }
      }
    }
  }

  async run(argv: string[], options: ExecOptions = {}): Promise<RunResult> {
    const output = await (await this.exec(argv, options)).output();
    const decoder = new TextDecoder();
    return { exitCode: output.exitCode, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
  }

  async stdout(argv: string[], options: ExecOptions = {}): Promise<string> {
    const { exitCode, stdout, stderr } = await this.run(argv, options);
    if (exitCode !== 0) throw new Error(`${argv[0]} exited with ${exitCode}: ${stderr.trim()}`);
    return stdout;
  }

  async spawn(argv: string[], options: ExecOptions = {}): Promise<SpawnedProcess> {
    // In /tmp, like workerd's own pid files: no folder to make first.
    const pidFile = `/tmp/.cloud-ide-process-${crypto.randomUUID()}`;
    const process = await this.exec(["sh", "-c", RECORD_PID, pidFile, ...argv], options);
    const forget = () => void this.run(["rm", "-f", pidFile], { wake: false, waitMs: 0 }).catch(() => {});
    process.exitCode.then(forget, forget);
    return {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      exitCode: process.exitCode,
      isPty: process.isPty,
      output: () => process.output(),
      resize: (cols, rows) => process.resize(cols, rows),
      kill: async (signal = "TERM") => {
        await this.run(["sh", "-c", KILL_SCRIPT, "sh", pidFile, signal], { wake: false, waitMs: 0 }).catch(() => {});
      },
    };
  }

  tcpPort(port: number): Fetcher {
    return this.container.getTcpPort(port);
  }

  /** A raw TCP connection to a port inside the container (what listens there must listen on every address). */
  connectTcp(port: number): Socket {
    // The port's Fetcher routes the connection; the address is nominal (the agent's, agent-tcp.ts, is the same).
    return this.container.getTcpPort(port).connect(`127.0.0.1:${port}`);
  }

  start(options: ContainerStartupOptions): void {
    this.generation++;
    // An agent of a container before this one is gone with it, whether or not its stream said so yet.
    void this.agent.stop();
    this.archiveRouted = false;
    this.container.start(options);
  }

  monitor(): Promise<void> {
    const stopped = () => void this.agent.stop();
    const monitoring = this.container.monitor();
    monitoring.then(stopped, stopped);
    return monitoring;
  }

  /**
   * Says the workspace is deleted, before its container goes: the local
   * platform's engine proxy then removes its network sidecar too (workerd
   * keeps one for the Durable Object's next start, running or asleep).
   * Running, it is a signal that PID 1 (`sleep infinity`, no handler)
   * ignores elsewhere; asleep, a connection to RELEASE_PORT, which the local
   * sidecar takes as its cue to exit, and which elsewhere simply fails.
   */
  async announceDeletion(): Promise<void> {
    if (this.running) {
      try {
        this.container.signal(DELETED_SIGNAL);
      } catch {
        // Stopped meanwhile: nothing to signal.
      }
      return;
    }
    try {
      const answer = await this.container
        .getTcpPort(RELEASE_PORT)
        .fetch("http://sidecar/", { signal: AbortSignal.timeout(RELEASE_WAIT_MS) });
      await answer.body?.cancel();
    } catch {
      // No sidecar here (Cloudflare, or none was ever started): nothing to release.
    }
  }

  destroy(): Promise<void> {
    void this.agent.stop();
    return this.container.destroy();
  }

  snapshot(): Promise<{ id: string }> {
    return this.container.snapshotContainer({ name: "workspace" });
  }

  setInactivityTimeout(ms: number): Promise<void> {
    return this.container.setInactivityTimeout(ms);
  }

  /** Whether this container's archive hostname was registered (see {@link ArchiveRoute}). */
  private archiveRouted = false;

  async routeArchives(): Promise<void> {
    if (!this.archiveRouted) await this.interceptArchive();
  }

  async interceptArchive(): Promise<void> {
    const exports = this.ctx.exports as unknown as {
      ArchiveGateway(options: { props: ArchiveGatewayProps }): Fetcher;
    };
    await this.container.interceptOutboundHttp(
      ARCHIVE_HOST,
      exports.ArchiveGateway({ props: { workspace: this.ctx.id.toString() } }),
    );
    this.archiveRouted = true;
  }

  async interceptOutbound(outbound: Fetcher): Promise<void> {
    // The archives' one hostname, then every HTTP, then every HTTPS: a
    // hostname intercept registered after the catch-all would never be used.
    // Without the first, archives go by exec (slower); the rules must apply regardless.
    await this.interceptArchive().catch((error: unknown) => console.warn(`archive route: ${describe(error)}`));
    await this.container.interceptAllOutboundHttp(outbound);
    await this.container.interceptOutboundHttps("*", outbound);
  }
}

function unavailable(reason: string): AppError {
  return new AppError(ErrorCode.CONTAINER_UNAVAILABLE, `The container does not answer (${reason}); try again.`);
}
