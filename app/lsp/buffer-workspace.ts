import { type LSPClient, LSPPlugin, Workspace, type WorkspaceFile } from "@codemirror/lsp-client";
import { ChangeSet, type Text, type TransactionSpec } from "@codemirror/state";
import type { EditorView } from "@codemirror/view";
import { fileLanguage, fileUri, type LanguageServerId, pathOfUri } from "../../protocol/language-servers";
import type { EditorModel } from "../editor/editor-model";

/** What the workspace needs from the page. */
export interface BufferWorkspaceHost {
  editor: EditorModel;
  server: LanguageServerId;
  /** Opens a file in the editor (and shows it); false when it cannot be shown. */
  show(path: string): Promise<boolean>;
}

class BufferFile implements WorkspaceFile {
  constructor(
    readonly path: string,
    readonly uri: string,
    readonly languageId: string,
    public version: number,
    public doc: Text,
    private readonly editor: EditorModel,
  ) {}

  getView(): EditorView | null {
    return this.editor.viewOf(this.path) ?? null;
  }
}

/**
 * The language server's view of the editor: every open text buffer of this
 * server's language is an open document, whether the one CodeMirror view
 * shows it or not. (lsp-client's default workspace knows only files that
 * have a view of their own; here buffers swap in and out of one view.)
 * Changes reach the server from the buffers' states: through the view's
 * plugin when it tracked them, as the whole text otherwise (an edit applied
 * to a hidden buffer, a reload from disk).
 */
export class BufferWorkspace extends Workspace {
  files: BufferFile[] = [];

  constructor(
    client: LSPClient,
    private readonly host: BufferWorkspaceHost,
  ) {
    super(client);
  }

  /** Opens and closes documents to match the editor's buffers; call after the editor changed. */
  track(): void {
    const wanted = new Map<string, string>();
    for (const buffer of this.host.editor.list()) {
      const language = fileLanguage(buffer.path);
      if (buffer.kind !== "text" || buffer.readOnly || language?.server !== this.host.server) continue;
      wanted.set(buffer.path, language.languageId);
    }
    for (const file of this.files) {
      if (wanted.has(file.path)) continue;
      this.files = this.files.filter((f) => f !== file);
      if (this.client.connected) this.client.didClose(file.uri);
    }
    for (const [path, languageId] of wanted) {
      if (this.files.some((f) => f.path === path)) continue;
      const doc = this.host.editor.state(path)?.doc;
      if (!doc) continue;
      const file = new BufferFile(path, fileUri(path), languageId, 0, doc, this.host.editor);
      this.files.push(file);
      if (this.client.connected) this.client.didOpen(file);
    }
  }

  syncFiles() {
    const updates: { file: WorkspaceFile; prevDoc: Text; changes: ChangeSet }[] = [];
    for (const file of this.files) {
      const current = this.host.editor.state(file.path)?.doc;
      if (!current || current === file.doc) continue;
      const view = file.getView();
      const plugin = view ? LSPPlugin.get(view) : null;
      let changes: ChangeSet;
      if (plugin && plugin.syncedDoc === file.doc && plugin.unsyncedChanges.newLength === current.length) {
        changes = plugin.unsyncedChanges;
      } else {
        changes = ChangeSet.of({ from: 0, to: file.doc.length, insert: current }, file.doc.length);
      }
      updates.push({ file, prevDoc: file.doc, changes });
      file.doc = current;
      file.version++;
      plugin?.clear();
    }
    return updates;
  }

  openFile(): void {
    // The plugin of the view calls this whenever the view shows a buffer: the
    // document is open on the server since the buffer opened.
    this.track();
  }

  closeFile(): void {
    // The view shows another buffer: this one stays open (see track()).
  }

  override connected(): void {
    this.track();
    for (const file of this.files) {
      file.doc = this.host.editor.state(file.path)?.doc ?? file.doc;
      this.client.didOpen(file);
    }
  }

  override updateFile(uri: string, update: TransactionSpec): void {
    const path = pathOfUri(uri);
    if (path !== undefined && this.host.editor.get(path)?.kind === "text") this.host.editor.update(path, update);
  }

  override async displayFile(uri: string): Promise<EditorView | null> {
    const path = pathOfUri(uri);
    if (path === undefined || !(await this.host.show(path))) return null;
    return this.host.editor.viewOf(path) ?? null;
  }
}
