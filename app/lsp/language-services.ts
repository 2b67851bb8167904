import { formatDocument, jumpToDefinition } from "@codemirror/lsp-client";
import { getDialog, showDialog } from "@codemirror/view";
import type * as lsp from "vscode-languageserver-protocol";
import { fileLanguage, type LanguageServerId, pathOfUri } from "../../protocol/language-servers";
import type { FilesApi } from "../api/files";
import type { EditorModel } from "../editor/editor-model";
import { decodeText } from "../editor/languages";
import { type ClientState, LanguageClient } from "./language-client";
import { ProblemsModel } from "./problems-model";
import { type Reference, ReferencesModel } from "./references-model";
import { applyWorkspaceEdit } from "./workspace-edit";

export type PanelTab = "problems" | "references";

export interface ServicesSnapshot {
  readonly open: boolean;
  readonly tab: PanelTab;
  readonly servers: readonly { server: LanguageServerId; state: ClientState; message?: string }[];
}

/**
 * What language servers add to the editor, for the whole page: one
 * {@link LanguageClient} per language, made when the first buffer of that
 * language opens; the Problems and References lists; and the editor actions
 * (go to definition, find references, rename across files, format).
 */
export class LanguageServices {
  readonly problems = new ProblemsModel();
  readonly references = new ReferencesModel();
  private readonly clients = new Map<LanguageServerId, LanguageClient>();
  private snapshot: ServicesSnapshot = { open: false, tab: "problems", servers: [] };
  private readonly listeners = new Set<() => void>();

  constructor(private readonly deps: { workspaceId: string; editor: EditorModel; files: FilesApi }) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): ServicesSnapshot => this.snapshot;

  /** Gives every buffer with a language server its extensions; returns the function that undoes it. */
  start(): () => void {
    const { editor } = this.deps;
    const remove = editor.addExtensions((path, { readOnly }) => {
      const language = fileLanguage(path);
      // A read-only buffer is a file too large to edit here: no server reads it either.
      if (!language || readOnly) return [];
      return this.client(language.server).extension(path, language.languageId);
    });
    const unsubscribe = editor.subscribe(() => {
      for (const client of this.clients.values()) client.buffersChanged();
    });
    return () => {
      remove();
      unsubscribe();
      for (const client of this.clients.values()) client.dispose();
      this.clients.clear();
    };
  }

  setPanel(change: Partial<Pick<ServicesSnapshot, "open" | "tab">>): void {
    this.snapshot = { ...this.snapshot, ...change };
    this.emit();
  }

  /** Whether the active buffer has a language server to act on. */
  canAct(): boolean {
    return this.active() !== undefined;
  }

  goToDefinition(): void {
    const active = this.active();
    if (active) jumpToDefinition(active.view);
  }

  formatDocument(): void {
    const active = this.active();
    if (active) formatDocument(active.view);
  }

  async findReferences(): Promise<void> {
    const active = this.active();
    if (!active) return;
    const { plugin, view } = active;
    const head = view.state.selection.main.head;
    const word = view.state.wordAt(head);
    const symbol = word ? view.state.sliceDoc(word.from, word.to) : undefined;
    this.references.set({ symbol, state: "searching", references: [] });
    this.setPanel({ open: true, tab: "references" });
    try {
      plugin.client.sync();
      const locations = await plugin.client.request<lsp.ReferenceParams, lsp.Location[] | null>(
        "textDocument/references",
        { textDocument: { uri: plugin.uri }, position: plugin.toPosition(head), context: { includeDeclaration: true } },
      );
      const references = await this.withText(locations ?? []);
      this.references.set({ symbol, state: "done", references });
    } catch (error) {
      this.references.set({ symbol, state: "failed", references: [], message: messageOf(error) });
    }
  }

  /** Asks for a new name, renames the symbol across files on disk and reloads what is open. */
  async renameSymbol(): Promise<string[] | undefined> {
    const active = this.active();
    if (!active) return undefined;
    const { plugin, view } = active;
    const word = view.state.wordAt(view.state.selection.main.head);
    if (!word) throw new Error("Put the cursor on a name to rename it.");
    const current = view.state.sliceDoc(word.from, word.to);
    const open = getDialog(view, "cm-lsp-rename-panel");
    if (open) {
      open.dom.querySelector("input")?.select();
      return undefined;
    }
    const { close, result } = showDialog(view, {
      label: `Rename ${current} to`,
      input: { name: "name", value: current, "aria-label": "New name" },
      focus: true,
      submitLabel: "Rename",
      class: "cm-lsp-rename-panel",
    });
    const form = await result;
    view.dispatch({ effects: close });
    const newName = (form?.elements.namedItem("name") as HTMLInputElement | null)?.value.trim();
    if (!newName || newName === current) return undefined;
    plugin.client.sync();
    const edit = await plugin.client.request<lsp.RenameParams, lsp.WorkspaceEdit | null>("textDocument/rename", {
      textDocument: { uri: plugin.uri },
      position: plugin.toPosition(word.from),
      newName,
    });
    if (!edit) throw new Error(`The language server cannot rename ${current}.`);
    return applyWorkspaceEdit(edit, this.deps);
  }

  private client(server: LanguageServerId): LanguageClient {
    let client = this.clients.get(server);
    if (!client) {
      client = new LanguageClient(server, {
        workspaceId: this.deps.workspaceId,
        editor: this.deps.editor,
        problems: this.problems,
        show: async (path) => {
          await this.deps.editor.open(path);
          return this.deps.editor.get(path)?.kind === "text";
        },
        changed: () => this.serversChanged(),
      });
      this.clients.set(server, client);
      this.serversChanged();
    }
    return client;
  }

  /** The active buffer's client and its plugin in the view, when it has a language server. */
  private active() {
    const path = this.deps.editor.activePath;
    const language = path === undefined ? undefined : fileLanguage(path);
    const client = language && this.clients.get(language.server);
    const plugin = path !== undefined ? client?.pluginFor(path) : undefined;
    return plugin ? { client, plugin, view: plugin.view } : undefined;
  }

  /** Each reference with its line's text (from the buffer when open, else from disk, once per file). */
  private async withText(locations: readonly lsp.Location[]): Promise<Reference[]> {
    const texts = new Map<string, Promise<string | undefined>>();
    const textOf = (path: string) => {
      let text = texts.get(path);
      if (!text) {
        const open = this.deps.editor.text(path);
        text =
          open !== undefined
            ? Promise.resolve(open)
            : this.deps.files.read(path).then(
                ({ bytes }) => decodeText(bytes),
                () => undefined,
              );
        texts.set(path, text);
      }
      return text;
    };
    const references: Reference[] = [];
    for (const location of locations) {
      const path = pathOfUri(location.uri);
      if (path === undefined) continue;
      const line = (await textOf(path))?.split("\n")[location.range.start.line] ?? "";
      references.push({
        path,
        line: location.range.start.line + 1,
        column: location.range.start.character + 1,
        text: line.trim(),
      });
    }
    return references;
  }

  private serversChanged(): void {
    this.snapshot = {
      ...this.snapshot,
      servers: [...this.clients.values()].map((c) => ({ server: c.server, state: c.state, message: c.message })),
    };
    this.emit();
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String((error as { message?: string })?.message ?? error);
}
