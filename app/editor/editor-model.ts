import {
  Compartment,
  EditorSelection,
  EditorState,
  type Extension,
  type Text,
  type TransactionSpec,
} from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { ErrorCode } from "../../protocol/errors";
import type { FilesApi } from "../api/files";
import { ApiRequestError, errorMessage } from "../api/http";
import type { FileEventListener } from "../files/file-events";
import { nameOf } from "../files/paths";
import { bufferExtensions } from "./buffer-extensions";
import { decodeText, imageTypeFor } from "./languages";
import {
  applyToText,
  caughtUp,
  mayShare,
  type SharedDocuments,
  type SharedText,
  sharedSize,
  whySharingFailed,
} from "./shared-buffer";

/** Above this a file opens read-only (CodeMirror stays usable, but editing it here is unwise). */
const READ_ONLY_BYTES = 5 * 1024 * 1024;
/** Above this a file is not loaded at all: size and a download link. */
const NO_LOAD_BYTES = 50 * 1024 * 1024;

export type BufferKind = "loading" | "text" | "image" | "binary" | "too-large" | "error";

/** A change on disk that meets unsaved edits, or a file deleted under its buffer. */
export type Conflict = { disk: string; etag: string } | { deleted: true };

/** What the page shows about one open file (immutable: a change makes a new object). */
export interface BufferInfo {
  readonly path: string;
  readonly kind: BufferKind;
  readonly size: number;
  /** Disk version the buffer is based on (sent as If-Match); "" when none. */
  readonly etag: string;
  readonly dirty: boolean;
  readonly readOnly: boolean;
  readonly imageUrl?: string;
  readonly error?: string;
  readonly conflict?: Conflict;
  readonly comparing?: boolean;
  readonly saving?: boolean;
  /** A failed save, for the person to read. */
  readonly message?: string;
  /** Everyone who has it open edits the same text (a shared document): no conflicts, saves through it. */
  readonly shared?: boolean;
  /** Why a text file that could be shared is not, for the person to read. */
  readonly note?: string;
}

export interface EditorSnapshot {
  readonly buffers: readonly BufferInfo[];
  readonly active: string | undefined;
}

/** A place in a file, 1-based as editors and language servers show it. */
export interface Position {
  line: number;
  column: number;
}

/** A text edit in 1-based positions (a language server's edits, converted). */
export interface TextEdit {
  from: Position;
  to: Position;
  insert: string;
}

interface Buffer {
  info: BufferInfo;
  /** Text last read or saved: the buffer is dirty when the document differs. */
  saved: string;
  /** The document and its undo history; the view's state while the view shows it. */
  state?: EditorState;
  /** Where to put the cursor once the buffer shows. */
  reveal?: Position;
  loading?: Promise<void>;
  /** The file's shared document while the buffer is shared; `saved` then is the disk's text. */
  shared?: SharedText;
  /** Stops following the shared text's changes (for the dirty mark while no view shows it). */
  unobserve?: () => void;
  /** Saves begun: a disk read that a save overtook is older than what the save wrote. */
  saves?: number;
}

/** Holds the providers' extensions in each state, so adding one keeps undo history. */
const provided = new Compartment();

/** Extra CodeMirror extensions for a buffer (language servers add theirs here). */
export type ExtensionProvider = (path: string, buffer: { readOnly: boolean }) => Extension;

/**
 * The open files of a workspace: one buffer per path, their CodeMirror states
 * (document, selection, undo history), saving, and what a change on disk does
 * to each. A text file up to MAX_SHARED_FILE_BYTES is shared (given
 * `shared`): its state is bound to the file's shared document, a save writes
 * the shared text, its saved state follows the disk, and a change on disk is
 * merged by the server (no conflict, unless the file is deleted). Other files,
 * or when the shared document cannot be had, keep a buffer of this page's own:
 * saved with If-Match, a clean one reloads on a change, a dirty one gets a conflict.
 * React reads it through `useSyncExternalStore(model.subscribe, model.getSnapshot)`;
 * the one CodeMirror view attaches itself with {@link attachView} and shows
 * the active buffer.
 */
export class EditorModel {
  private readonly buffers = new Map<string, Buffer>();
  private order: string[] = [];
  private active: string | undefined;
  private snapshot: EditorSnapshot = { buffers: [], active: undefined };
  private readonly listeners = new Set<() => void>();
  private view: EditorView | undefined;
  /** The path whose state the view shows. */
  private viewPath: string | undefined;
  private readonly providers = new Set<ExtensionProvider>();

  constructor(
    private readonly files: FilesApi,
    /** The workspace's shared documents; without them every buffer is this page's own. */
    private readonly sharing?: SharedDocuments,
  ) {}

  // --- reading (for React and for features built on top) ---

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): EditorSnapshot => this.snapshot;

  /** The open buffers, in tab order. */
  list(): readonly BufferInfo[] {
    return this.snapshot.buffers;
  }

  get(path: string): BufferInfo | undefined {
    return this.buffers.get(path)?.info;
  }

  get activePath(): string | undefined {
    return this.active;
  }

  /** The live editor state of a text buffer (the view's while it shows it; a shared one has the shared text). */
  state(path: string): EditorState | undefined {
    if (this.view && this.viewPath === path) return this.view.state;
    const buffer = this.buffers.get(path);
    if (buffer?.shared && buffer.state) buffer.state = caughtUp(buffer.state, buffer.shared.text.toString());
    return buffer?.state;
  }

  /** The CodeMirror view, while it shows this buffer. */
  viewOf(path: string): EditorView | undefined {
    return this.view && this.viewPath === path ? this.view : undefined;
  }

  /** The buffer's current text, edits included (a shared buffer's: everyone's). */
  text(path: string): string | undefined {
    const buffer = this.buffers.get(path);
    if (buffer?.shared && buffer.state && this.viewPath !== path) return buffer.shared.text.toString();
    return this.state(path)?.doc.toString();
  }

  /** Whether leaving loses edits: a shared buffer's unsaved edits stay in the workspace. */
  isDirty(): boolean {
    return this.order.some((path) => {
      const buffer = this.buffers.get(path);
      return buffer?.info.dirty && !buffer.shared;
    });
  }

  // --- opening, showing, closing ---

  /**
   * Opens a file (or shows it when open) and makes it active, unless
   * `background`; with `at`, puts the cursor there (1-based line and column)
   * and scrolls to it. Resolves once the file is loaded.
   */
  async open(path: string, at?: Position, { background = false } = {}): Promise<void> {
    let buffer = this.buffers.get(path);
    if (!buffer) {
      buffer = { info: { path, kind: "loading", size: 0, etag: "", dirty: false, readOnly: false }, saved: "" };
      this.buffers.set(path, buffer);
      this.order = [...this.order, path];
      buffer.loading = this.load(path);
      this.emit();
    }
    if (at) buffer.reveal = at;
    if (!background) this.activate(path);
    await buffer.loading;
    this.applyReveal(path);
  }

  /** Shows an open buffer. */
  activate(path: string | undefined): void {
    if (path !== undefined && !this.buffers.has(path)) return;
    if (this.active === path) return;
    this.active = path;
    this.showActive();
    this.emit();
  }

  /**
   * Closes a buffer. Unsaved changes are lost, so unless `force` the person
   * is asked first; returns whether it closed.
   */
  close(path: string, { force = false } = {}): boolean {
    const buffer = this.buffers.get(path);
    if (!buffer) return true;
    // A shared buffer's unsaved edits stay in its shared document: closing loses nothing.
    if (
      !force &&
      buffer.info.dirty &&
      !buffer.shared &&
      !confirm(`"${nameOf(path)}" has unsaved changes. Close it and lose them?`)
    ) {
      return false;
    }
    if (buffer.info.imageUrl) URL.revokeObjectURL(buffer.info.imageUrl);
    this.unshare(buffer);
    const index = this.order.indexOf(path);
    this.buffers.delete(path);
    this.order = this.order.filter((p) => p !== path);
    if (this.viewPath === path) this.viewPath = undefined;
    if (this.active === path) {
      this.active = this.order[Math.min(index, this.order.length - 1)] ?? this.order.at(-1);
      this.showActive();
    }
    this.emit();
    return true;
  }

  /** Leaves every shared document (the page leaves the workspace); the buffers stay as this page's own. */
  leaveShared(): void {
    for (const path of this.order) {
      const buffer = this.buffers.get(path) as Buffer;
      if (!buffer.shared) continue;
      if (this.viewPath !== path && buffer.state) buffer.state = this.state(path);
      this.unshare(buffer);
      this.patch(path, { shared: false });
    }
  }

  // --- the view ---

  /** The CodeMirror view mounts (or unmounts, with undefined): it shows the active buffer. */
  attachView(view: EditorView | undefined): void {
    this.storeViewState();
    this.view = view;
    this.viewPath = undefined;
    this.showActive();
  }

  /** Gives the keyboard to the editor (after quick open, say), when it shows a file. */
  focus(): void {
    this.view?.focus();
  }

  /** Asks every provider again for each buffer's extensions (a provider's answer for a path changed). */
  refreshExtensions(): void {
    this.rebuildStates();
  }

  /** Adds extensions to every buffer, now and later; returns a function that removes them. */
  addExtensions(provider: ExtensionProvider): () => void {
    this.providers.add(provider);
    this.rebuildStates();
    return () => {
      this.providers.delete(provider);
      this.rebuildStates();
    };
  }

  // --- editing and saving ---

  /**
   * Applies edits to a buffer, opening it first when it is not open (the
   * buffer becomes dirty; nothing is written until it is saved). Edits are
   * given against the text before any of them, as a language server sends them.
   */
  async applyEdits(path: string, edits: readonly TextEdit[]): Promise<void> {
    await this.open(path, undefined, { background: true });
    const state = this.state(path);
    if (!state || this.get(path)?.kind !== "text") throw new Error(`${path} is not a text file.`);
    const changes = edits.map((edit) => ({
      from: offsetOf(state.doc, edit.from),
      to: offsetOf(state.doc, edit.to),
      insert: edit.insert,
    }));
    this.updateState(path, { changes });
  }

  /** A transaction on an open text buffer, shown or not (language servers' diagnostics and edits). */
  update(path: string, spec: TransactionSpec): void {
    this.updateState(path, spec);
  }

  /**
   * Saves a text buffer to disk: a shared one writes the shared text (the server merges a change on disk
   * first), another If-Match its disk version. Failures show on the buffer.
   */
  async save(path = this.active): Promise<void> {
    const buffer = path === undefined ? undefined : this.buffers.get(path);
    if (!buffer || path === undefined) return;
    if (buffer.shared) return this.saveShared(path, buffer, buffer.shared);
    const { info } = buffer;
    const text = this.text(path);
    if (info.kind !== "text" || info.readOnly || text === undefined || info.saving) return;
    // The request leaves before the "saving" mark re-renders the page: that render is not the save's to wait for.
    const saving = this.files.save(path, text, info.etag || undefined);
    buffer.saves = (buffer.saves ?? 0) + 1;
    this.patch(path, { saving: true, message: undefined });
    try {
      const saved = await saving;
      const current = this.buffers.get(path);
      if (!current) return;
      current.saved = text;
      this.patch(path, {
        saving: false,
        etag: saved.etag,
        dirty: this.text(path) !== text,
        conflict: undefined,
        size: saved.size,
      });
    } catch (cause) {
      if (cause instanceof ApiRequestError && cause.code === ErrorCode.FILE_CHANGED) {
        this.patch(path, { saving: false });
        await this.checkDisk(path, true);
      } else {
        this.patch(path, { saving: false, message: `Not saved: ${errorMessage(cause)}` });
      }
    }
  }

  async saveAll(): Promise<void> {
    await Promise.all(this.order.filter((p) => this.get(p)?.dirty).map((p) => this.save(p)));
  }

  /**
   * Reads a buffer's file again: a clean buffer takes the disk version
   * (keeping its undo history and cursor), a dirty one gets a conflict bar.
   * For changes the page made itself (a rename across files, a git checkout).
   */
  reload(path: string): Promise<void> {
    return this.checkDisk(path, true);
  }

  // --- conflicts ---

  /** Keep mine (optionally the text edited in the compare view), or take the disk version. */
  resolveConflict(path: string, choice: "mine" | "disk", mine?: string): void {
    const buffer = this.buffers.get(path);
    const conflict = buffer?.info.conflict;
    if (!buffer || !conflict) return;
    if (choice === "disk") {
      if ("deleted" in conflict) {
        this.close(path, { force: true });
        return;
      }
      this.replaceText(path, conflict.disk);
      buffer.saved = conflict.disk;
      this.patch(path, { etag: conflict.etag, dirty: false, conflict: undefined, comparing: false });
      return;
    }
    // The next save overwrites the disk.
    if (mine !== undefined) this.replaceText(path, mine);
    this.patch(path, {
      etag: "deleted" in conflict ? "" : conflict.etag,
      dirty: true,
      conflict: undefined,
      comparing: false,
    });
  }

  setComparing(path: string, comparing: boolean): void {
    // The compare view replaces the editor: keep what the view holds.
    if (comparing && this.viewPath === path) this.storeViewState();
    this.patch(path, { comparing });
    if (!comparing) this.showActive();
  }

  // --- what happened elsewhere ---

  /**
   * A file or folder was renamed in the tree: its buffers follow. A shared document belongs to its path, so a
   * shared buffer becomes one of this page's own (with the text it had), and says so.
   */
  renamed(from: string, to: string): void {
    const moved = (p: string) => p === from || p.startsWith(`${from}/`);
    if (!this.order.some(moved)) return;
    this.storeViewState();
    this.viewPath = undefined;
    const renamed = (p: string) => (moved(p) ? to + p.slice(from.length) : p);
    for (const old of this.order.filter(moved)) {
      const buffer = this.buffers.get(old) as Buffer;
      const path = renamed(old);
      // A new path may mean another language: the state is made again with the same text.
      const text = buffer.state ? this.text(old) : undefined;
      const wasShared = buffer.shared !== undefined;
      this.unshare(buffer);
      this.buffers.delete(old);
      this.buffers.set(path, {
        ...buffer,
        info: {
          ...buffer.info,
          path,
          shared: false,
          note: wasShared
            ? "Renamed: this tab is no longer shared with others (a shared document belongs to its path). Close and open the file again to edit it together."
            : buffer.info.note,
        },
        state: text === undefined ? undefined : this.makeState(path, text, buffer.info.readOnly),
      });
    }
    this.order = this.order.map(renamed);
    if (this.active !== undefined) this.active = renamed(this.active);
    this.showActive();
    this.emit();
  }

  /** A file or folder was deleted in the tree: clean buffers close, dirty ones (shared ones too) say so. */
  deleted(path: string): void {
    for (const open of [...this.order]) {
      if (open !== path && !open.startsWith(`${path}/`)) continue;
      if (this.get(open)?.dirty) this.patch(open, { conflict: { deleted: true }, etag: "" });
      else this.close(open, { force: true });
    }
  }

  /** Changes from the watch stream (app/files/file-events.ts). */
  readonly onFileEvent: FileEventListener = (event) => {
    if (event.kind === "git") return;
    if (event.kind === "resync") {
      for (const path of this.order) void this.checkDisk(path);
      return;
    }
    for (const change of event.changes) {
      for (const path of this.order) {
        if (path === change.path || path === change.from || path.startsWith(`${change.path}/`)) {
          void this.checkDisk(path);
        }
      }
    }
  };

  // --- inside ---

  private async load(path: string): Promise<void> {
    const buffer = this.buffers.get(path);
    if (!buffer) return;
    // The file joins its shared document while its bytes are read, not after: opening is no slower for it.
    // What turns out not to be shared text leaves it again.
    let joining = this.sharing && !buffer.shared && mayShare(path) ? this.sharing.open(path) : undefined;
    const leave = () => {
      joining?.destroy();
      joining = undefined;
    };
    const current = () => this.buffers.get(path) === buffer;
    try {
      const info = await this.files.stat(path);
      if (info.type === "directory") throw new Error(`${path} is a folder.`);
      if (info.size > NO_LOAD_BYTES) {
        leave();
        this.patch(path, { kind: "too-large", size: info.size, etag: info.etag });
        return;
      }
      if (!sharedSize(info.size)) leave();
      const { bytes, etag } = await this.files.read(path);
      if (!current()) return leave();
      const image = imageTypeFor(path);
      if (image) {
        leave();
        const imageUrl = URL.createObjectURL(new Blob([bytes as BlobPart], { type: image }));
        if (buffer.info.imageUrl) URL.revokeObjectURL(buffer.info.imageUrl);
        this.patch(path, { kind: "image", size: bytes.byteLength, etag, imageUrl });
        return;
      }
      const text = decodeText(bytes);
      if (text === undefined) {
        leave();
        this.patch(path, { kind: "binary", size: bytes.byteLength, etag });
        return;
      }
      let note: string | undefined;
      if (joining && sharedSize(bytes.byteLength)) {
        const why = await whySharingFailed(joining);
        if (!current()) return leave();
        if (why !== undefined) {
          leave();
          note = `Not shared with others (${why}): this tab edits its own copy, saved only if the file did not change meanwhile.`;
        }
      } else {
        leave();
      }
      const readOnly = bytes.byteLength > READ_ONLY_BYTES;
      buffer.saved = text;
      if (joining) this.share(path, buffer, joining);
      const shown = joining ? joining.text.toString() : text;
      buffer.state = this.makeState(path, shown, readOnly, joining);
      this.patch(path, {
        kind: "text",
        size: bytes.byteLength,
        etag,
        dirty: shown !== text,
        readOnly,
        conflict: undefined,
        shared: joining !== undefined,
        note,
      });
      if (this.active === path) this.showActive();
    } catch (cause) {
      leave();
      this.patch(path, { kind: "error", error: errorMessage(cause) });
    }
  }

  /** The buffer follows its shared document: its dirty mark changes with others' edits too. */
  private share(path: string, buffer: Buffer, shared: SharedText): void {
    buffer.shared = shared;
    const changed = () => {
      // The view's own update listener marks what the view shows.
      if (this.viewPath !== path && this.buffers.get(path) === buffer) this.updateDirty(path);
    };
    shared.text.observe(changed);
    buffer.unobserve = () => shared.text.unobserve(changed);
  }

  /** Leaves a buffer's shared document (the buffer closed or was renamed). */
  private unshare(buffer: Buffer): void {
    buffer.unobserve?.();
    buffer.shared?.destroy();
    buffer.unobserve = undefined;
    buffer.shared = undefined;
  }

  /** Writes the shared text; the buffer is saved when its text is what was written. */
  private async saveShared(path: string, buffer: Buffer, shared: SharedText): Promise<void> {
    if (buffer.info.saving) return;
    // The save goes behind this page's last keystrokes (so it has them), before the "saving" mark re-renders
    // the page (that render is not the save's to wait for).
    const saving = shared.save();
    buffer.saves = (buffer.saves ?? 0) + 1;
    this.patch(path, { saving: true, message: undefined });
    try {
      const saved = await saving;
      if (this.buffers.get(path) !== buffer) return;
      buffer.saved = saved.text;
      this.patch(path, {
        saving: false,
        etag: saved.file.etag,
        size: saved.file.size,
        dirty: this.text(path) !== saved.text,
        conflict: undefined,
      });
    } catch (cause) {
      this.patch(path, { saving: false, message: `Not saved: ${errorMessage(cause)}` });
    }
  }

  /** Compares the disk with the buffer after a change event (or a refused save, or a reload). */
  private async checkDisk(path: string, force = false): Promise<void> {
    const info = this.get(path);
    if (!info || info.kind === "loading") return;
    if (info.saving && !force) return;
    if (info.kind !== "text") return this.load(path);
    const saves = this.buffers.get(path)?.saves;
    let disk: { bytes: Uint8Array; etag: string } | undefined;
    try {
      // Unless forced, the bytes come only when the file is not the version the buffer holds (most often, after
      // this tab's own save, it is).
      disk = force || !info.etag ? await this.files.read(path) : await this.files.readIfChanged(path, info.etag);
    } catch (cause) {
      if (cause instanceof ApiRequestError && cause.status === 404) {
        this.patch(path, { conflict: { deleted: true }, dirty: true, etag: "" });
      }
      return;
    }
    const buffer = this.buffers.get(path);
    if (!disk || !buffer || (disk.etag === buffer.info.etag && !force)) return;
    // A save begun during the read wrote a newer version than this one (its change event was skipped while it
    // ran): taking this read would mark the saved buffer dirty again, against a text the disk no longer has.
    if (!force && buffer.saves !== saves) return;
    const text = decodeText(disk.bytes) ?? "";
    if (buffer.shared) {
      // The server merges the change into the shared text; here it is only what the buffer compares with.
      buffer.saved = text;
      this.patch(path, { etag: disk.etag, dirty: this.text(path) !== text, conflict: undefined });
      return;
    }
    const mine = this.text(path) ?? buffer.saved;
    if (mine === text) {
      buffer.saved = text;
      this.patch(path, { etag: disk.etag, dirty: false, conflict: undefined });
      return;
    }
    if (!buffer.info.dirty) {
      // Clean: take the disk version silently, keeping the cursor where it can stay.
      this.replaceText(path, text);
      buffer.saved = text;
      this.patch(path, { etag: disk.etag, dirty: false, conflict: undefined });
      return;
    }
    this.patch(path, { conflict: { disk: text, etag: disk.etag } });
  }

  private makeState(path: string, text: string, readOnly: boolean, shared?: SharedText): EditorState {
    return EditorState.create({
      doc: text,
      extensions: [
        bufferExtensions(path, readOnly, {
          onSave: () => void this.save(path),
          onChange: () => this.updateDirty(path),
        }),
        shared ? shared.extension() : [],
        provided.of(this.providedExtensions(path, readOnly)),
      ],
    });
  }

  private providedExtensions(path: string, readOnly: boolean): Extension {
    return [...this.providers].map((provide) => provide(path, { readOnly }));
  }

  /** Gives every text buffer the current providers' extensions (text, cursor and undo history stay). */
  private rebuildStates(): void {
    for (const path of this.order) {
      const readOnly = this.get(path)?.readOnly ?? false;
      if (this.state(path)) {
        this.updateState(path, { effects: provided.reconfigure(this.providedExtensions(path, readOnly)) });
      }
    }
  }

  /** A transaction on a buffer: through the view when it shows it (so it draws), else on the stored state. */
  private updateState(path: string, spec: TransactionSpec): void {
    if (this.view && this.viewPath === path) {
      this.view.dispatch(spec);
      return;
    }
    const buffer = this.buffers.get(path);
    if (!buffer?.state) return;
    const state = this.state(path) as EditorState;
    const transaction = state.update(spec);
    buffer.state = transaction.state;
    // No view binds a stored state to its shared text: its changes go there here (as this page's own edits).
    if (buffer.shared && transaction.docChanged) applyToText(buffer.shared.text, transaction.changes);
    this.updateDirty(path);
  }

  /** Replaces the whole text as one undoable change, keeping the cursor where it can stay. */
  private replaceText(path: string, text: string): void {
    const state = this.state(path);
    if (!state) return;
    this.updateState(path, {
      changes: { from: 0, to: state.doc.length, insert: text },
      selection: { anchor: Math.min(state.selection.main.head, text.length) },
    });
  }

  private updateDirty(path: string): void {
    const buffer = this.buffers.get(path);
    const state = this.state(path);
    if (!buffer || !state) return;
    const dirty = state.doc.length !== buffer.saved.length || state.doc.toString() !== buffer.saved;
    if (dirty !== buffer.info.dirty) this.patch(path, { dirty });
  }

  private storeViewState(): void {
    const buffer = this.viewPath === undefined ? undefined : this.buffers.get(this.viewPath);
    if (buffer && this.view) buffer.state = this.view.state;
  }

  /** Puts the active buffer's state into the view (storing the one it showed). */
  private showActive(): void {
    const view = this.view;
    if (!view) return;
    const buffer = this.active === undefined ? undefined : this.buffers.get(this.active);
    if (this.viewPath !== undefined && this.viewPath === this.active) return;
    this.storeViewState();
    this.viewPath = undefined;
    if (!buffer?.state || buffer.info.comparing) return;
    // A shared buffer's stored state first takes what others did meanwhile: the view's binding starts from it.
    const state = this.state(this.active as string) as EditorState;
    this.viewPath = this.active;
    view.setState(state);
    this.applyReveal(this.active as string);
  }

  private applyReveal(path: string): void {
    const buffer = this.buffers.get(path);
    const at = buffer?.reveal;
    const state = this.state(path);
    if (!buffer || !at || !state) return;
    buffer.reveal = undefined;
    const anchor = offsetOf(state.doc, at);
    if (this.view && this.viewPath === path) {
      this.view.dispatch({
        selection: EditorSelection.cursor(anchor),
        effects: EditorView.scrollIntoView(anchor, { y: "center" }),
      });
      this.view.focus();
    } else {
      // Not showing yet: the cursor waits in the state; `reveal` stays, so the view scrolls there once it shows it.
      buffer.state = state.update({ selection: EditorSelection.cursor(anchor) }).state;
      buffer.reveal = at;
    }
  }

  private patch(path: string, change: Partial<BufferInfo>): void {
    const buffer = this.buffers.get(path);
    if (!buffer) return;
    buffer.info = { ...buffer.info, ...change };
    this.emit();
  }

  private emit(): void {
    this.snapshot = {
      buffers: this.order.map((path) => (this.buffers.get(path) as Buffer).info),
      active: this.active,
    };
    for (const listener of this.listeners) listener();
  }
}

/** The document offset of a 1-based line and column, clamped into the document. */
export function offsetOf(doc: Text, { line, column }: Position): number {
  const lineInfo = doc.line(Math.max(1, Math.min(doc.lines, Math.floor(line))));
  return lineInfo.from + Math.max(0, Math.min(lineInfo.length, Math.floor(column) - 1));
}
