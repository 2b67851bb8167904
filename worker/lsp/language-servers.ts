/**
 * The workspace's language servers: one {@link SharedLanguageServer} per
 * language, made on first use, each a process in the container started
 * through the sandbox adapter (never waking it: opening the socket does
 * that). Changes on disk from the workspace's file watcher reach every
 * running server as `workspace/didChangeWatchedFiles`.
 */
import type { FileChange } from "../../protocol/files";
import { fileUri, type LanguageServerId, WATCHED_EXTENSIONS } from "../../protocol/language-servers";
import { describe } from "../errors";
import type { FileWatcher } from "../files/file-watcher";
import { PROCESS_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import { isUnavailable, type Sandbox } from "../sandbox/sandbox";
import { ContentLengthReader, encodeMessage } from "./content-length";
import { type LanguageSocketHooks, openLanguageServerSocket } from "./lsp-socket";
import { ROOT_URI } from "./server-requests";
import { FIND_PYTHON, SERVER_SPECS, type ServerContext, type ServerSpec } from "./server-specs";
import { type ServerConnection, SharedLanguageServer } from "./shared-server";

/** A server no page has used for this long is shut down. */
export const IDLE_STOP_MS = 5 * 60_000;
/** Lines of a server's stderr logged per process, at most (the rest is dropped). */
const STDERR_LINES = 50;

export class LanguageServers {
  private readonly servers = new Map<LanguageServerId, SharedLanguageServer>();
  private sockets = 0;
  private unwatch: (() => void) | undefined;

  constructor(
    private readonly deps: {
      sandbox: Pick<Sandbox, "spawn" | "stdout">;
      watcher: Pick<FileWatcher, "listen">;
      idleMs?: number;
    },
  ) {}

  /** A page's WebSocket to the `language` server (the caller checked the name and started the container). */
  open(language: LanguageServerId, hooks: LanguageSocketHooks = {}): Response {
    const server = this.server(language);
    this.sockets++;
    this.unwatch ??= this.deps.watcher.listen({
      changes: (changes) => this.filesChanged(changes),
      resync: () => this.everythingChanged(),
    });
    return openLanguageServerSocket(server, {
      ...hooks,
      onClose: () => {
        hooks.onClose?.();
        this.sockets--;
        if (this.sockets > 0) return;
        this.unwatch?.();
        this.unwatch = undefined;
      },
    });
  }

  async dispose(): Promise<void> {
    this.unwatch?.();
    this.unwatch = undefined;
    await Promise.all([...this.servers.values()].map((server) => server.dispose()));
    this.servers.clear();
  }

  private server(language: LanguageServerId): SharedLanguageServer {
    let server = this.servers.get(language);
    if (!server) {
      const spec = SERVER_SPECS[language];
      server = new SharedLanguageServer({
        name: spec.name,
        initializationOptions: spec.initializationOptions,
        idleMs: this.deps.idleMs ?? IDLE_STOP_MS,
        start: (onMessage) => this.start(spec, onMessage),
        // A container that does not run is not started by a server: the next page message tries again.
        retryable: (error) => !isUnavailable(error),
      });
      this.servers.set(language, server);
    }
    return server;
  }

  private async start(spec: ServerSpec, onMessage: (json: string) => void): Promise<ServerConnection> {
    const { sandbox } = this.deps;
    const options = { cwd: WORKSPACE_ROOT, env: PROCESS_ENV, wake: false } as const;
    const context: ServerContext = { python: "python3" };
    if (spec.id === "python") context.python = (await sandbox.stdout(["sh", "-c", FIND_PYTHON], options)).trim();
    const process = await sandbox.spawn([...spec.argv], { ...options, stdin: "pipe", stderr: "pipe" });
    const stdin = process.stdin?.getWriter();
    const reader = new ContentLengthReader((junk) => console.warn(`lsp ${spec.id}: not a message: ${junk}`));
    void (async () => {
      if (!process.stdout) return;
      for await (const chunk of process.stdout as ReadableStream<Uint8Array>) {
        for (const message of reader.push(chunk)) onMessage(message);
      }
    })().catch((error) => console.warn(`lsp ${spec.id}: reading stdout: ${describe(error)}`));
    void logLines(process.stderr, `lsp ${spec.id}`);
    return {
      send: (message) => {
        if (!stdin) throw new Error("the server has no stdin");
        stdin.write(encodeMessage(JSON.stringify(message))).catch(() => {});
      },
      exited: process.exitCode,
      kill: () => process.kill("KILL"),
      settings: (section) => spec.settings(section, context),
    };
  }

  /** Changes on disk, to every running server that cares about such files. */
  private filesChanged(changes: FileChange[]): void {
    for (const [language, server] of this.servers) {
      const extensions = WATCHED_EXTENSIONS[language];
      const events: { uri: string; type: 1 | 2 | 3 }[] = [];
      for (const change of changes) {
        const wanted = (path: string) => change.directory || extensions.includes(extensionOf(path));
        if (change.type === "moved") {
          if (change.from !== undefined && wanted(change.from)) events.push({ uri: fileUri(change.from), type: 3 });
          if (wanted(change.path)) events.push({ uri: fileUri(change.path), type: 1 });
        } else if (wanted(change.path)) {
          events.push({
            uri: fileUri(change.path),
            type: change.type === "created" ? 1 : change.type === "deleted" ? 3 : 2,
          });
        }
      }
      server.filesChanged(events);
    }
  }

  /**
   * The watcher lost changes (it restarted, its queue overflowed): the
   * workspace folder itself changed, which makes pyright re-read what it
   * has loaded and resolve imports again.
   */
  private everythingChanged(): void {
    for (const server of this.servers.values()) server.filesChanged([{ uri: ROOT_URI, type: 2 }]);
  }
}

function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
}

async function logLines(stream: ReadableStream<Uint8Array> | undefined | null, prefix: string): Promise<void> {
  if (!stream) return;
  const decoder = new TextDecoder();
  let logged = 0;
  let buffer = "";
  try {
    for await (const chunk of stream as ReadableStream<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) {
        if (line.trim() && logged++ < STDERR_LINES) console.warn(`${prefix}: ${line.slice(0, 500)}`);
      }
    }
  } catch {
    // The process went away.
  }
}
