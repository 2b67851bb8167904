import { setDiagnostics } from "@codemirror/lint";
import {
  hoverTooltips,
  jumpToDefinition,
  LSPClient,
  LSPPlugin,
  serverDiagnostics,
  signatureHelp,
  type Transport,
} from "@codemirror/lsp-client";
import type { Extension } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import DOMPurify from "dompurify";
import {
  fileUri,
  type LanguageServerId,
  SERVER_STATUS_METHOD,
  type ServerStatus,
  WORKSPACE_URI,
} from "../../protocol/language-servers";
import type { EditorModel } from "../editor/editor-model";
import { BufferWorkspace } from "./buffer-workspace";
import { documentedCompletion } from "./completion";
import { type LspDiagnostic, type ProblemsModel, severityOf } from "./problems-model";
import { ServerSocket } from "./server-socket";

/**
 * The first answers of a cold server (a TypeScript project loading) can take
 * several seconds, and over 20 s in a container sharing a busy machine. A
 * request the person made (format, rename) is worth that wait: one given up
 * sooner is lost work for them, since its late answer is dropped. Passive
 * ones (completion, hover) are superseded by the editor when it moves on.
 */
const REQUEST_TIMEOUT_MS = 60_000;

export type ClientState = ServerStatus["state"] | "connecting" | "disconnected";

export interface LanguageClientHost {
  workspaceId: string;
  editor: EditorModel;
  problems: ProblemsModel;
  show(path: string): Promise<boolean>;
  /** The client's state changed (for the status shown under the editor). */
  changed(): void;
}

interface PublishedDiagnostics {
  uri: string;
  version?: number;
  diagnostics: (LspDiagnostic & { range: { end: { line: number; character: number } } })[];
}

/**
 * One language's connection from the page: an lsp-client `LSPClient` over
 * the workspace's socket for that language, its documents being the
 * editor's open buffers (buffer-workspace.ts), its diagnostics going both to
 * the buffers (squiggles) and to the Problems list.
 */
export class LanguageClient {
  readonly client: LSPClient;
  private readonly workspace: () => BufferWorkspace;
  private readonly socket: ServerSocket;
  state: ClientState = "connecting";
  message: string | undefined;

  constructor(
    readonly server: LanguageServerId,
    private readonly host: LanguageClientHost,
  ) {
    let workspace: BufferWorkspace | undefined;
    this.client = new LSPClient({
      rootUri: WORKSPACE_URI,
      timeout: REQUEST_TIMEOUT_MS,
      workspace: (client) => {
        workspace = new BufferWorkspace(client, { editor: host.editor, server, show: host.show });
        return workspace;
      },
      // Documentation is Markdown from the project and its packages: no scripts, no event handlers.
      sanitizeHTML: (html) => DOMPurify.sanitize(html),
      notificationHandlers: {
        "textDocument/publishDiagnostics": (_client, params: PublishedDiagnostics) => {
          this.diagnostics(params);
          return true;
        },
        [SERVER_STATUS_METHOD]: (_client, params: ServerStatus) => {
          if (params.state === "restarting") host.problems.clearServer(server);
          this.setState(params.state, params.message);
          return true;
        },
      },
      extensions: [serverDiagnostics(), documentedCompletion(), hoverTooltips(), signatureHelp(), definitionOnClick],
    });
    this.workspace = () => workspace as BufferWorkspace;
    this.socket = new ServerSocket(`/ws/workspaces/${host.workspaceId}/lsp/${server}`, {
      open: (transport: Transport) => {
        this.setState("starting");
        this.client.connect(transport);
        this.client.initializing.catch((error: { message?: string }) =>
          this.setState("unavailable", error?.message ?? String(error)),
        );
      },
      drop: (reason) => {
        this.client.disconnect();
        this.setState("disconnected", reason);
      },
    });
    this.socket.connect();
  }

  /** The extensions of one buffer of this language. */
  extension(path: string, languageId: string): Extension {
    return this.client.plugin(fileUri(path), languageId);
  }

  /** The editor's buffers changed: open and close documents, and send pending edits. */
  buffersChanged(): void {
    this.workspace().track();
    if (this.state === "ready") this.client.sync();
  }

  /** The plugin of the buffer the view shows, when it is one of this language's. */
  pluginFor(path: string): LSPPlugin | undefined {
    const view = this.host.editor.viewOf(path);
    const plugin = view ? LSPPlugin.get(view) : null;
    return plugin?.client === this.client ? plugin : undefined;
  }

  /** Drops the socket (test hook): the page reconnects as after any drop. */
  dropConnection(): void {
    this.socket.drop();
  }

  dispose(): void {
    this.socket.close();
    this.client.disconnect();
  }

  private setState(state: ClientState, message?: string): void {
    this.state = state;
    this.message = message;
    this.host.changed();
  }

  /** Squiggles in the buffer (when they match its text) and entries in the Problems list. */
  private diagnostics(params: PublishedDiagnostics): void {
    this.host.problems.publish(this.server, params.uri, params.diagnostics);
    const file = this.workspace().getFile(params.uri);
    if (!file || (params.version != null && params.version !== file.version)) return;
    const path = "path" in file ? (file.path as string) : undefined;
    if (path === undefined) return;
    const state = this.host.editor.state(path);
    if (!state) return;
    // Positions are in the text the server last had; map them through what changed since.
    const plugin = this.pluginFor(path);
    const synced = file.doc;
    let map: (position: { line: number; character: number }) => number;
    if (plugin && plugin.syncedDoc === synced) {
      map = (position) => plugin.unsyncedChanges.mapPos(fromPosition(synced, position));
    } else if (state.doc === synced) {
      map = (position) => fromPosition(synced, position);
    } else {
      return; // Edited since: the server publishes again after the next sync.
    }
    const marks = params.diagnostics.map((item) => ({
      from: map(item.range.start),
      to: map(item.range.end),
      severity: severityOf(item.severity),
      message: item.message,
      source: item.source,
    }));
    this.host.editor.update(path, setDiagnostics(state, marks));
  }
}

/** Ctrl/Cmd+click goes to the definition of what was clicked (F12 is the key). */
const definitionOnClick = EditorView.domEventHandlers({
  mousedown(event, view) {
    if (!(event.ctrlKey || event.metaKey) || event.button !== 0) return false;
    const pos = view.posAtCoords({ x: event.clientX, y: event.clientY });
    if (pos === null) return false;
    view.dispatch({ selection: { anchor: pos } });
    jumpToDefinition(view);
    event.preventDefault();
    return true;
  },
});

function fromPosition(
  doc: { lines: number; line(n: number): { from: number; length: number } },
  position: {
    line: number;
    character: number;
  },
): number {
  const line = doc.line(Math.min(doc.lines, position.line + 1));
  return line.from + Math.min(line.length, position.character);
}
