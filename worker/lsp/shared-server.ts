/**
 * One language server shared by every page of a workspace: started on the
 * first page's initialize, restarted when it dies while pages use it, stopped
 * when no page has been connected for a while. Pages never see each other:
 * their request ids are rewritten, the server's answers go back to the page
 * that asked, diagnostics go to every page, initialize reaches the server
 * once (later pages get its answer replayed), and files are opened and closed
 * on the server by reference count (open-documents.ts).
 */
import { JsonRpcErrorCode, SERVER_STATUS_METHOD, type ServerStatus } from "../../protocol/language-servers";
import { describe } from "../errors";
import { type ContentChange, isContentChanges } from "./document-text";
import { errorReply, isNotification, isRequest, type JsonRpcId, type JsonRpcMessage } from "./json-rpc";
import { OpenDocuments } from "./open-documents";
import { answerServerRequest, sharedInitializeParams } from "./server-requests";

/** A running server process, its messages already unframed. */
export interface ServerConnection {
  send(message: JsonRpcMessage): void;
  /** Settles when the process has ended. */
  readonly exited: Promise<unknown>;
  /** Ends the process (a signal). */
  kill(): Promise<void>;
  /** The answer to `workspace/configuration` for one section. */
  settings(section: string | undefined): unknown;
}

/** Starts the process; it calls `onMessage` with each message body the server writes. */
export type StartServer = (onMessage: (json: string) => void) => Promise<ServerConnection>;

/** One page's connection (its WebSocket, in the bridge). */
export interface Peer {
  send(message: JsonRpcMessage): void;
}

export interface SharedServerOptions {
  /** "TypeScript", for messages. */
  name: string;
  initializationOptions: Record<string, unknown>;
  start: StartServer;
  /** No page connected for this long: the server is shut down. */
  idleMs: number;
  /** Whether a failed start is worth trying again by itself (not when the container sleeps). */
  retryable?: (error: unknown) => boolean;
  log?: (line: string) => void;
}

export interface PeerHandle {
  receive(message: JsonRpcMessage): void;
  close(): void;
}

interface PeerState {
  peer: Peer;
  initialized: boolean;
  /** The page's id → the server's id, for requests in flight (to cancel them). */
  inFlight: Map<JsonRpcId, number>;
}

const INITIALIZE_TIMEOUT_MS = 60_000;
const SHUTDOWN_TIMEOUT_MS = 3_000;
/** A server that keeps dying is started again after 0.25 s, then 0.5, 1, 2 ... up to 30 s. */
const RESTART_BASE_MS = 250;
const RESTART_MAX_MS = 30_000;
const CRASH_WINDOW_MS = 120_000;

/** Page notifications the bridge takes care of itself (sent once, or from the file watcher). */
const ABSORBED_NOTIFICATIONS = new Set([
  "initialized",
  "exit",
  "workspace/didChangeWatchedFiles",
  "workspace/didChangeConfiguration",
]);
/** Server notifications no page needs. */
const DROPPED_NOTIFICATIONS = new Set(["window/logMessage", "$/progress", "telemetry/event", "$/typescriptVersion"]);

export class SharedLanguageServer {
  private state: "stopped" | "starting" | "running" | "stopping" = "stopped";
  private connection: ServerConnection | undefined;
  private initializeParams: Record<string, unknown> | undefined;
  private initializeResult: unknown;
  private nextId = 1;
  /** Server id → the page request it stands for. */
  private readonly pending = new Map<number, { peer: PeerState; id: JsonRpcId }>();
  /** Server id → the bridge's own request (initialize, shutdown). */
  private readonly internal = new Map<number, (message: JsonRpcMessage) => void>();
  private readonly peers = new Map<Peer, PeerState>();
  private readonly documents = new OpenDocuments<PeerState>();
  /** The latest diagnostics per file, for pages that connect or open it later. */
  private readonly diagnostics = new Map<string, unknown>();
  /** Page requests waiting for the server to be running. */
  private waiting: { run: () => void; fail: (message: string) => void }[] = [];
  private crashes: number[] = [];
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private status: ServerStatus = { state: "starting" };

  constructor(private readonly options: SharedServerOptions) {}

  /** Whether a server process runs (for tests and the status). */
  get running(): boolean {
    return this.state === "running";
  }

  get connectedPeers(): number {
    return this.peers.size;
  }

  connect(peer: Peer): PeerHandle {
    const state: PeerState = { peer, initialized: false, inFlight: new Map() };
    this.peers.set(peer, state);
    clearTimeout(this.idleTimer);
    return {
      receive: (message) => this.receive(state, message),
      close: () => this.disconnect(state),
    };
  }

  /** Files changed on disk (from the workspace's watcher): LSP FileEvents. */
  filesChanged(changes: { uri: string; type: 1 | 2 | 3 }[]): void {
    if (this.state !== "running" || changes.length === 0) return;
    this.send({ jsonrpc: "2.0", method: "workspace/didChangeWatchedFiles", params: { changes } });
  }

  /** Stops the server now (the workspace is going away). */
  async dispose(): Promise<void> {
    clearTimeout(this.idleTimer);
    clearTimeout(this.restartTimer);
    await this.stop();
  }

  // --- from the pages ---

  private receive(peer: PeerState, message: JsonRpcMessage): void {
    if (!this.peers.has(peer.peer)) return;
    // Answers to the server's requests: the bridge answered those itself.
    if (message.method === undefined) return;
    if (isRequest(message)) this.request(peer, message);
    else if (isNotification(message)) this.notification(peer, message);
  }

  private request(peer: PeerState, message: JsonRpcMessage): void {
    const id = message.id as JsonRpcId;
    if (message.method === "initialize") {
      this.initializeParams ??= sharedInitializeParams(message.params, this.options.initializationOptions);
      this.whenRunning(
        () => {
          peer.initialized = true;
          peer.peer.send({ jsonrpc: "2.0", id, result: this.initializeResult });
          peer.peer.send(this.statusMessage());
          for (const [uri, diagnostics] of this.diagnostics) {
            peer.peer.send(publish({ uri, diagnostics }));
          }
        },
        (reason) => peer.peer.send(errorReply(id, JsonRpcErrorCode.InternalError, reason)),
      );
      return;
    }
    if (!peer.initialized) {
      peer.peer.send(errorReply(id, JsonRpcErrorCode.ServerNotInitialized, "Send initialize first."));
      return;
    }
    if (message.method === "shutdown") {
      // Only this page is done; the server stays for the others.
      peer.peer.send({ jsonrpc: "2.0", id, result: null });
      return;
    }
    this.whenRunning(
      () => {
        if (!this.peers.has(peer.peer)) return;
        const serverId = this.nextId++;
        this.pending.set(serverId, { peer, id });
        peer.inFlight.set(id, serverId);
        this.send({ ...message, id: serverId });
      },
      (reason) => peer.peer.send(errorReply(id, JsonRpcErrorCode.InternalError, reason)),
    );
  }

  private notification(peer: PeerState, message: JsonRpcMessage): void {
    if (!peer.initialized || ABSORBED_NOTIFICATIONS.has(message.method as string)) return;
    const params = (message.params ?? {}) as Record<string, unknown>;
    const up = this.state === "running";
    switch (message.method) {
      case "textDocument/didOpen": {
        const document = params.textDocument as
          | { uri?: unknown; languageId?: unknown; version?: unknown; text?: unknown }
          | undefined;
        if (
          typeof document?.uri !== "string" ||
          typeof document.text !== "string" ||
          typeof document.version !== "number"
        ) {
          return;
        }
        const uri = document.uri;
        const messages = this.documents.open(
          peer,
          {
            uri,
            languageId: typeof document.languageId === "string" ? document.languageId : "",
            version: document.version,
            text: document.text,
          },
          up,
        );
        this.sendAll(messages);
        // The server already had this text: it will not publish again, so replay what it said.
        if (up && messages.length === 0) this.replayDiagnostics(peer, uri);
        break;
      }
      case "textDocument/didChange": {
        const document = params.textDocument as { uri?: unknown; version?: unknown } | undefined;
        const changes = params.contentChanges;
        if (typeof document?.uri !== "string" || typeof document.version !== "number") return;
        if (!isContentChanges(changes)) return;
        const messages = this.documents.change(peer, document.uri, document.version, changes as ContentChange[], up);
        if (messages) this.sendAll(messages);
        break;
      }
      case "textDocument/didClose": {
        const uri = (params.textDocument as { uri?: unknown } | undefined)?.uri;
        if (typeof uri !== "string") return;
        this.sendAll(this.documents.close(peer, uri, up));
        if (this.documents.owners(uri).length === 0) this.diagnostics.delete(uri);
        break;
      }
      case "$/cancelRequest": {
        const serverId = peer.inFlight.get((params as { id: JsonRpcId }).id);
        if (serverId !== undefined && up) this.send({ ...message, params: { id: serverId } });
        return;
      }
      default:
        if (up) this.send(message);
    }
    if (!up) this.ensureStarted();
  }

  private disconnect(peer: PeerState): void {
    if (!this.peers.delete(peer.peer)) return;
    const up = this.state === "running";
    for (const serverId of peer.inFlight.values()) {
      this.pending.delete(serverId);
      if (up) this.send({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: serverId } });
    }
    this.sendAll(this.documents.closeAll(peer, up));
    for (const uri of [...this.diagnostics.keys()]) {
      if (this.documents.owners(uri).length === 0) this.diagnostics.delete(uri);
    }
    if (this.peers.size === 0) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => void this.stop().catch(() => {}), this.options.idleMs);
    }
  }

  // --- from the server ---

  private fromServer(json: string): void {
    let message: JsonRpcMessage;
    try {
      message = JSON.parse(json) as JsonRpcMessage;
    } catch {
      this.log(`unreadable message from the server: ${json.slice(0, 200)}`);
      return;
    }
    if (typeof message !== "object" || message === null) return;
    if (isRequest(message)) {
      const connection = this.connection;
      if (connection) this.send(answerServerRequest(message, (section) => connection.settings(section)));
      return;
    }
    if (isNotification(message)) {
      this.serverNotification(message);
      return;
    }
    if (typeof message.id !== "number") return;
    const internal = this.internal.get(message.id);
    if (internal) {
      this.internal.delete(message.id);
      internal(message);
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    pending.peer.inFlight.delete(pending.id);
    const { jsonrpc: _, id: __, ...answer } = message;
    pending.peer.peer.send({ jsonrpc: "2.0", id: pending.id, ...answer });
  }

  private serverNotification(message: JsonRpcMessage): void {
    if (DROPPED_NOTIFICATIONS.has(message.method as string)) return;
    if (message.method !== "textDocument/publishDiagnostics") {
      for (const peer of this.peers.values()) if (peer.initialized) peer.peer.send(message);
      return;
    }
    const params = message.params as { uri?: unknown; version?: unknown; diagnostics?: unknown };
    if (typeof params?.uri !== "string" || !Array.isArray(params.diagnostics)) return;
    const uri = params.uri;
    const serverVersion = typeof params.version === "number" ? params.version : undefined;
    this.diagnostics.set(uri, params.diagnostics);
    for (const peer of this.peers.values()) {
      if (!peer.initialized) continue;
      const version = this.documents.pageVersion(peer, uri, serverVersion);
      peer.peer.send(publish({ uri, diagnostics: params.diagnostics, version }));
    }
  }

  private replayDiagnostics(peer: PeerState, uri: string): void {
    const diagnostics = this.diagnostics.get(uri);
    const version = this.documents.inStepVersion(peer, uri);
    if (diagnostics === undefined || version === undefined) return;
    peer.peer.send(publish({ uri, diagnostics, version }));
  }

  // --- the process ---

  /** Runs `run` once the server runs (now, if it does); `fail` if it cannot start. */
  private whenRunning(run: () => void, fail: (message: string) => void): void {
    if (this.state === "running") {
      run();
      return;
    }
    this.waiting.push({ run, fail });
    this.ensureStarted();
  }

  private ensureStarted(): void {
    if (this.state !== "stopped" || !this.initializeParams) return;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    void this.startServer();
  }

  private async startServer(): Promise<void> {
    this.state = "starting";
    let connection: ServerConnection | undefined;
    try {
      connection = await this.options.start((json) => {
        if (this.connection === connection) this.fromServer(json);
      });
      this.connection = connection;
      const started = connection;
      void connection.exited.then(
        () => this.exited(started),
        () => this.exited(started),
      );
      const answer = await this.internalRequest("initialize", this.initializeParams, INITIALIZE_TIMEOUT_MS);
      if (answer.error) throw new Error(answer.error.message);
      this.initializeResult = answer.result;
      this.send({ jsonrpc: "2.0", method: "initialized", params: {} });
      this.state = "running";
      this.sendAll(this.documents.reopen());
      this.setStatus({ state: "ready" });
      const waiting = this.waiting;
      this.waiting = [];
      for (const { run } of waiting) run();
    } catch (error) {
      const reason = `The ${this.options.name} language server could not start: ${describe(error)}`;
      this.log(reason);
      if (connection && this.connection === connection) this.connection = undefined;
      void connection?.kill();
      this.state = "stopped";
      this.documents.serverStopped();
      const waiting = this.waiting;
      this.waiting = [];
      for (const { fail } of waiting) fail(reason);
      this.setStatus({ state: "unavailable", message: reason });
      if (this.options.retryable?.(error) ?? true) this.scheduleRestart();
    }
  }

  private exited(connection: ServerConnection): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    const previous = this.state;
    this.state = "stopped";
    this.documents.serverStopped();
    this.diagnostics.clear();
    const gone: JsonRpcMessage = { jsonrpc: "2.0", id: null, error: { code: -1, message: "server exited" } };
    for (const resolve of this.internal.values()) resolve(gone);
    this.internal.clear();
    const reason = `The ${this.options.name} language server stopped; it is starting again.`;
    for (const { peer, id } of this.pending.values()) {
      peer.inFlight.delete(id);
      peer.peer.send(errorReply(id, JsonRpcErrorCode.RequestCancelled, reason));
    }
    this.pending.clear();
    if (previous === "running") {
      this.log(`${this.options.name} language server exited`);
      if (this.peers.size > 0) {
        this.setStatus({ state: "restarting", message: reason });
        this.scheduleRestart();
      }
    } else if (previous === "stopping" && this.waiting.length > 0) {
      // A page came back while it was shutting down.
      this.ensureStarted();
    }
  }

  private scheduleRestart(): void {
    if (this.peers.size === 0 || this.restartTimer) return;
    const now = Date.now();
    this.crashes = [...this.crashes.filter((at) => now - at < CRASH_WINDOW_MS), now];
    const delay = Math.min(RESTART_BASE_MS * 2 ** (this.crashes.length - 1), RESTART_MAX_MS);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.peers.size > 0) this.ensureStarted();
    }, delay);
  }

  private async stop(): Promise<void> {
    const connection = this.connection;
    if (!connection || this.state !== "running" || this.peers.size > 0) return;
    this.state = "stopping";
    await this.internalRequest("shutdown", null, SHUTDOWN_TIMEOUT_MS).catch(() => {});
    if (this.connection === connection) this.send({ jsonrpc: "2.0", method: "exit" });
    const timer = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_TIMEOUT_MS));
    await Promise.race([connection.exited, timer]);
    await connection.kill();
  }

  private internalRequest(method: string, params: unknown, timeoutMs: number): Promise<JsonRpcMessage> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.internal.delete(id);
        reject(new Error(`no answer to ${method} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.internal.set(id, (message) => {
        clearTimeout(timer);
        if (message.id === null) reject(new Error("the process exited"));
        else resolve(message);
      });
      this.send({ jsonrpc: "2.0", id, method, params: params ?? undefined });
    });
  }

  private send(message: JsonRpcMessage): void {
    try {
      this.connection?.send(message);
    } catch (error) {
      this.log(`writing to the server failed: ${describe(error)}`);
    }
  }

  private sendAll(messages: readonly JsonRpcMessage[]): void {
    for (const message of messages) this.send(message);
  }

  private setStatus(status: ServerStatus): void {
    this.status = status;
    const message = this.statusMessage();
    for (const peer of this.peers.values()) if (peer.initialized) peer.peer.send(message);
  }

  private statusMessage(): JsonRpcMessage {
    return { jsonrpc: "2.0", method: SERVER_STATUS_METHOD, params: this.status };
  }

  private log(line: string): void {
    (this.options.log ?? console.warn)(`lsp: ${line}`);
  }
}

function publish(params: { uri: string; diagnostics: unknown; version?: number }): JsonRpcMessage {
  const { version, ...rest } = params;
  return {
    jsonrpc: "2.0",
    method: "textDocument/publishDiagnostics",
    params: version === undefined ? rest : { ...rest, version },
  };
}
