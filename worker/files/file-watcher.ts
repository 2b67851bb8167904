import type { FileChange } from "../../protocol/files";
import { type AgentClient, AgentUnavailableError } from "../resident/agent-client";
import { WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox, SpawnedProcess } from "../sandbox/sandbox";
import { ChangeParser, coalesce } from "./change-batcher";

/**
 * Not watched: node_modules (huge, changed by tools), repositories below the
 * workspace's own, and the parts of /workspace/.git that change without
 * changing what `git status` says (objects, logs, hooks). Its HEAD, index
 * and refs are watched, so a commit or a checkout in the terminal is seen.
 */
function excluded(root: string): string {
  const escaped = root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return [
    "(^|/)node_modules(/|$)",
    `^${escaped}/.+/\\.git(/|$)`,
    `^${escaped}/\\.git/(objects|logs|hooks|info|lfs|modules|worktrees|rr-cache|fsmonitor--daemon)(/|$)`,
  ].join("|");
}

/** A path inside the repository's own metadata: reported as one `git` event, not as file changes. */
export function isGitMetadata(path: string): boolean {
  return path.startsWith(".git/");
}
/**
 * Changes within this window go out as one batch. The first change after a
 * quiet window goes out at once (with whatever came in the same read), so a
 * lone change is not held back; a burst is still batched.
 */
const BATCH_MS = 40;
const HEARTBEAT_MS = 20_000;
/** Keep the watcher this long after the last client leaves (reloads, reconnects). */
const IDLE_STOP_MS = 30_000;
const RESTART_DELAY_MS = 1_000;
/**
 * A watcher that has not said "Watches established" by then is replaced: an
 * exec that never answers (seen under load) must not leave every client
 * without events until the object restarts.
 */
const READY_TIMEOUT_MS = 15_000;

/** What the watcher needs of the lifecycle: whether a container runs, and word when one starts. */
export interface ContainerEvents {
  readonly isRunning: boolean;
  onRunning(listener: () => void): () => void;
}

/** An in-process listener: each batch of changes, and a signal that some were lost. */
export interface WatchListener {
  changes(changes: FileChange[]): void;
  /** Changes were lost: anything may have changed. */
  resync(): void;
}

/** What produces the events: the resident agent's watch, or an inotifywait process; stop() ends it. */
interface EventSource {
  stop(): void;
}

/**
 * One recursive inotify watch over /workspace per Durable Object, fanned out
 * to every client as server-sent events: the resident agent's `watch`
 * request (worker/resident/), or `inotifywait -m -r` when the agent cannot
 * start. Both give the same lines. Restarts when it dies; after a restart
 * clients get `resync` and re-read what they show, since events were lost.
 */
export class FileWatcher {
  private readonly clients = new Set<WritableStreamDefaultWriter<Uint8Array>>();
  /** In-process listeners (language servers), which keep the watcher running like clients do. */
  private readonly listeners = new Set<WatchListener>();
  /** Events were lost (the watcher died after it watched): listeners hear it once the next one watches. */
  private lostEvents = false;
  private process: EventSource | undefined;
  private starting = false;
  private ready = false;
  private pending: FileChange[] = [];
  /** Something under /workspace/.git changed since the last batch. */
  private gitChanged = false;
  private batchTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the latest batch went out. */
  private lastBatchAt = 0;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly encoder = new TextEncoder();

  /** While no container runs: stops waiting for the next one to start. */
  private waitingForStart: (() => void) | undefined;

  constructor(
    private readonly sandbox: Pick<Sandbox, "spawn">,
    /** The watcher follows the container and never starts it: a stopped or sleeping workspace stays so. */
    private readonly container: ContainerEvents,
    private readonly root = WORKSPACE_ROOT,
    /** The resident agent, tried first; it never starts the container either. */
    private readonly agent?: Pick<AgentClient, "open">,
  ) {}

  /** A new SSE response that receives every change until the client goes. */
  subscribe(): Response {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    this.clients.add(writer);
    clearTimeout(this.idleTimer);
    // Padding first: some proxies hold back the first bytes of a stream.
    this.write(writer, `: ${" ".repeat(2048)}\nretry: 1000\n\n`);
    if (this.ready) this.write(writer, "event: ready\ndata: {}\n\n");
    this.heartbeat ??= setInterval(() => this.broadcast(": ping\n\n"), HEARTBEAT_MS);
    void this.ensureWatching();
    return new Response(readable, {
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache, no-transform",
        "X-Accel-Buffering": "no",
      },
    });
  }

  /**
   * Calls `listener.changes` with each batch of changes, and `listener.resync`
   * when changes were lost (a restart, an overflow), until the returned
   * function is called; the watcher runs meanwhile (it never starts the container).
   */
  listen(listener: WatchListener): () => void {
    this.listeners.add(listener);
    clearTimeout(this.idleTimer);
    void this.ensureWatching();
    return () => {
      if (this.listeners.delete(listener)) this.stopWhenUnused();
    };
  }

  /**
   * Starts the watcher again (the folders it watched were replaced, by a
   * restore): its clients get a resync and language servers hear the whole
   * workspace changed, as after any restart.
   */
  restart(): void {
    this.process?.stop();
  }

  private get wanted(): boolean {
    return this.clients.size > 0 || this.listeners.size > 0;
  }

  private async ensureWatching(): Promise<void> {
    if (this.process || this.starting || !this.wanted) return;
    this.starting = true;
    try {
      if (!this.container.isRunning) {
        // Stopped or asleep: wait for someone to start it rather than starting it ourselves.
        this.waitingForStart ??= this.container.onRunning(() => {
          this.waitingForStart?.();
          this.waitingForStart = undefined;
          void this.ensureWatching();
        });
        return;
      }
      if (await this.watchThroughAgent()) return;
      const started = this.sandbox.spawn(
        [
          "inotifywait",
          "-m",
          "-r",
          "-e",
          "create,modify,close_write,attrib,delete,move",
          "--format",
          "%e\t%w%f",
          "--exclude",
          excluded(this.root),
          this.root,
        ],
        { stderr: "pipe", wake: false },
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), READY_TIMEOUT_MS);
      });
      const process = await Promise.race([started, late]).finally(() => clearTimeout(timer));
      if (process === "late") {
        // Whenever it does answer, that watcher goes: a new one starts now.
        void started.then(
          (late) => late.kill(),
          () => {},
        );
        throw new Error(`inotifywait did not start within ${READY_TIMEOUT_MS / 1000} s`);
      }
      const source: EventSource = { stop: () => void process.kill() };
      this.process = source;
      this.replaceUnlessReady(source);
      void this.readStderr(process);
      if (process.stdout) void this.readEvents((process.stdout as ReadableStream<Uint8Array>).getReader());
      void process.exitCode.then(
        () => this.stopped(source),
        () => this.stopped(source),
      );
    } catch (error) {
      console.error(`file watcher could not start: ${String(error)}`);
      setTimeout(() => void this.ensureWatching(), RESTART_DELAY_MS * 5);
    } finally {
      this.starting = false;
    }
  }

  /**
   * Watches through the resident agent: its HEAD says every folder is
   * watched, its lines follow. False when the agent cannot start (then
   * inotifywait watches instead).
   */
  private async watchThroughAgent(): Promise<boolean> {
    if (!this.agent) return false;
    let body: ReadableStream<Uint8Array>;
    try {
      ({ body } = await this.agent.open("watch", [this.root, excluded(this.root)]));
    } catch (error) {
      if (error instanceof AgentUnavailableError) {
        console.error(`file watcher: ${error.message}; watching with inotifywait instead`);
        return false;
      }
      throw error;
    }
    const reader = body.getReader();
    const source: EventSource = { stop: () => void reader.cancel().catch(() => {}) };
    this.process = source;
    this.watching();
    void this.readEvents(reader).then(() => this.stopped(source));
    return true;
  }

  /** Every folder is watched: clients hear "ready", and listeners a resync when events were lost before. */
  private watching(): void {
    this.ready = true;
    this.broadcast("event: ready\ndata: {}\n\n");
    // Not at the old one's exit: what changes until the new one watches is lost too.
    if (this.lostEvents) {
      this.lostEvents = false;
      this.notifyResync();
    }
  }

  /** Restarts a watcher that runs but never says it watches (see READY_TIMEOUT_MS). */
  private replaceUnlessReady(process: EventSource): void {
    setTimeout(() => {
      if (this.process !== process || this.ready) return;
      console.error(`file watcher not ready within ${READY_TIMEOUT_MS / 1000} s; starting it again`);
      this.process = undefined;
      process.stop();
      if (this.wanted) void this.ensureWatching();
    }, READY_TIMEOUT_MS);
  }

  private stopped(process: EventSource): void {
    if (this.process !== process) return;
    this.process = undefined;
    const wasReady = this.ready;
    this.ready = false;
    if (!this.wanted) return;
    // Lost events while down: clients re-read once it is back.
    if (wasReady) {
      this.broadcast("event: resync\ndata: {}\n\n");
      this.lostEvents = true;
    }
    setTimeout(() => void this.ensureWatching(), RESTART_DELAY_MS);
  }

  /** inotifywait says "Watches established." on stderr once every directory is watched. */
  private async readStderr(process: SpawnedProcess): Promise<void> {
    if (!process.stderr) return;
    const decoder = new TextDecoder();
    let text = "";
    for await (const chunk of process.stderr as ReadableStream<Uint8Array>) {
      if (this.ready) continue;
      text += decoder.decode(chunk, { stream: true });
      if (text.includes("Watches established")) this.watching();
    }
  }

  private async readEvents(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const parser = new ChangeParser(this.root);
    const decoder = new TextDecoder();
    let buffer = "";
    let moveTimer: ReturnType<typeof setTimeout> | undefined;
    try {
      for (;;) {
        const { done, value: chunk } = await reader.read();
        if (done) break;
        clearTimeout(moveTimer);
        buffer += decoder.decode(chunk, { stream: true });
        let newline = buffer.indexOf("\n");
        while (newline !== -1) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.startsWith("Q_OVERFLOW")) {
            this.broadcast("event: resync\ndata: {}\n\n");
            this.notifyResync();
          }
          this.enqueue(parser.push(line));
          newline = buffer.indexOf("\n");
        }
        // A rename's two halves can arrive in separate reads (seen under load):
        // a MOVED_FROM still alone a batch window later left the tree.
        if (parser.hasPendingMove) moveTimer = setTimeout(() => this.enqueue(parser.flush()), BATCH_MS);
      }
    } catch (error) {
      // A container that stopped takes its watch with it: that is not news, and the next start watches again.
      if (this.container.isRunning) console.error(`file watcher output failed: ${String(error)}`);
    }
  }

  private enqueue(changes: FileChange[]): void {
    if (changes.length === 0) return;
    for (const change of changes) {
      if (isGitMetadata(change.path)) this.gitChanged = true;
      else this.pending.push(change);
    }
    if (this.batchTimer !== undefined) return;
    const quiet = Date.now() - this.lastBatchAt >= BATCH_MS;
    this.batchTimer = setTimeout(
      () => {
        this.batchTimer = undefined;
        this.lastBatchAt = Date.now();
        const batch = coalesce(this.pending);
        this.pending = [];
        if (batch.length > 0) {
          this.broadcast(`event: changes\ndata: ${JSON.stringify({ changes: batch })}\n\n`);
          for (const listener of this.listeners) {
            try {
              listener.changes(batch);
            } catch (error) {
              console.error(`file change listener failed: ${String(error)}`);
            }
          }
        }
        // After the file changes of the same batch: a client reading status then sees both.
        if (this.gitChanged) this.broadcast("event: git\ndata: {}\n\n");
        this.gitChanged = false;
      },
      quiet ? 0 : BATCH_MS,
    );
  }

  private notifyResync(): void {
    for (const listener of this.listeners) {
      try {
        listener.resync();
      } catch (error) {
        console.error(`file change listener failed: ${String(error)}`);
      }
    }
  }

  private broadcast(text: string): void {
    for (const writer of this.clients) this.write(writer, text);
  }

  private write(writer: WritableStreamDefaultWriter<Uint8Array>, text: string): void {
    writer.write(this.encoder.encode(text)).catch(() => this.drop(writer));
  }

  private drop(writer: WritableStreamDefaultWriter<Uint8Array>): void {
    if (!this.clients.delete(writer)) return;
    writer.abort().catch(() => {});
    if (this.clients.size > 0) return;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.stopWhenUnused();
  }

  /** Stops the watcher a while after the last client and listener left. */
  private stopWhenUnused(): void {
    if (this.wanted) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.wanted) return;
      const process = this.process;
      this.process = undefined;
      this.ready = false;
      process?.stop();
    }, IDLE_STOP_MS);
  }
}
