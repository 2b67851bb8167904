import type { FileEntry } from "../../protocol/files";
import type { FilesApi } from "../api/files";
import { errorMessage } from "../api/http";
import type { DroppedFile } from "./dropped-files";
import type { FileEventListener } from "./file-events";
import { joinPath, nameOf, parentOf } from "./paths";

/** Folders that are never opened for the user: huge and machine-made. */
export const HEAVY = new Set(["node_modules", ".git"]);
const SHOW_HIDDEN_KEY = "files.showHidden";

export interface Folder {
  entries?: FileEntry[];
  error?: string;
  loading?: boolean;
}

export interface Row {
  path: string;
  name: string;
  type: FileEntry["type"] | "new-file" | "new-folder";
  depth: number;
  size: number;
}

export type Editing = { kind: "rename"; path: string } | { kind: "new-file" | "new-folder"; parent: string };

export interface Upload {
  total: number;
  sent: number;
  files: number;
  done: number;
  error?: string;
}

export interface TreeSnapshot {
  readonly rows: readonly Row[];
  readonly folders: ReadonlyMap<string, Folder>;
  readonly expanded: ReadonlySet<string>;
  readonly showHidden: boolean;
  readonly selected: string | undefined;
  readonly editing: Editing | undefined;
  readonly upload: Upload | undefined;
}

/** What the tree tells the editor: opened, renamed and deleted paths. */
export interface TreeListener {
  open(path: string): void;
  renamed(from: string, to: string): void;
  deleted(path: string): void;
}

/**
 * The workspace's file tree: folders listed when opened, which are open,
 * the selection, an edit in place (rename, new file or folder), an upload's
 * progress, and live updates from the watch stream. Actions throw on failure
 * (the component shows the error); React reads it through
 * `useSyncExternalStore(model.subscribe, model.getSnapshot)`.
 */
export class FileTreeModel {
  private folders = new Map<string, Folder>();
  private expanded = new Set<string>(["."]);
  private showHidden = localStorage.getItem(SHOW_HIDDEN_KEY) === "1";
  private selected: string | undefined;
  private editing: Editing | undefined;
  private upload: Upload | undefined;
  private snapshot: TreeSnapshot;
  private readonly listeners = new Set<() => void>();
  /** The number of the latest listing asked for, per folder. */
  private readonly listings = new Map<string, number>();

  constructor(
    private readonly files: FilesApi,
    private readonly editor: TreeListener,
  ) {
    this.snapshot = this.makeSnapshot();
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): TreeSnapshot => this.snapshot;

  /** Lists a folder; `wake: false` for re-reads the page makes by itself (they must not wake a sleeping workspace). */
  async load(dir: string, { wake = true } = {}): Promise<void> {
    // Listings of one folder can cross on the wire (a burst of change events asks for several): only the
    // latest one asked for is shown, so an older listing never takes back a name a newer one has.
    const asked = (this.listings.get(dir) ?? 0) + 1;
    this.listings.set(dir, asked);
    this.setFolder(dir, { ...this.folders.get(dir), loading: true });
    try {
      const { entries } = await this.files.list(dir, { wake });
      if (this.listings.get(dir) !== asked) return;
      this.setFolder(dir, { entries });
    } catch (cause) {
      if (this.listings.get(dir) !== asked) return;
      // Asleep: keep showing what was there; the next "ready" re-reads it.
      if (!wake) this.setFolder(dir, { ...this.folders.get(dir), loading: false });
      else this.setFolder(dir, { error: errorMessage(cause) });
    }
  }

  /**
   * Shows each change at once in the loaded folders (a new name appears, a
   * deleted one goes), then re-lists those folders for what the event does
   * not say (a link's kind): a file made in a terminal shows without waiting
   * for that round trip. A change to the content of an entry the folder
   * already lists changes no row (the tree shows no sizes or times), so it
   * re-lists nothing: a save, or a build writing files, no longer lists
   * their folders again each time.
   */
  readonly onFileEvent: FileEventListener = (event) => {
    if (event.kind === "git") return;
    const dirs = new Set<string>();
    if (event.kind === "resync") {
      for (const dir of this.folders.keys()) dirs.add(dir);
    } else {
      const folders = new Map(this.folders);
      for (const change of event.changes) {
        if (change.type === "modified" && listedAs(folders, change.path, change.directory)) continue;
        dirs.add(parentOf(change.path));
        if (change.from) dirs.add(parentOf(change.from));
        if (change.type === "deleted") this.dropSubtree(change.path, folders);
        if (change.type === "moved" && change.from) this.dropSubtree(change.from, folders);
        if (change.type === "created" || change.type === "moved") {
          addEntry(folders, change.path, change.directory ? "directory" : "file");
        }
      }
      this.folders = folders;
      this.changed();
    }
    for (const dir of dirs) if (this.folders.has(dir)) void this.load(dir, { wake: false });
  };

  toggle(path: string, open = !this.expanded.has(path)): void {
    this.expanded = new Set(this.expanded);
    if (open) this.expanded.add(path);
    else this.expanded.delete(path);
    this.changed();
    if (open && !this.folders.get(path)?.entries) void this.load(path);
  }

  select(path: string | undefined): void {
    if (this.selected === path) return;
    this.selected = path;
    this.changed();
  }

  /** Selects a file and opens the folders above it (the editor's active file). */
  reveal(path: string): void {
    const ancestors: string[] = [];
    for (let dir = parentOf(path); dir !== "."; dir = parentOf(dir)) ancestors.unshift(dir);
    this.selected = path;
    this.expanded = new Set([...this.expanded, ...ancestors]);
    this.changed();
    for (const dir of ancestors) if (!this.folders.get(dir)?.entries) void this.load(dir);
  }

  setShowHidden(show: boolean): void {
    this.showHidden = show;
    localStorage.setItem(SHOW_HIDDEN_KEY, show ? "1" : "0");
    this.changed();
  }

  /** A click or Enter on a row: folders open and close, files open in the editor. */
  activate(row: Row): void {
    this.select(row.path);
    if (row.type === "directory") this.toggle(row.path);
    else if (row.type === "file" || row.type === "symlink") this.editor.open(row.path);
  }

  /** Starts a new file or folder in the folder of `at` (a folder, or a file's parent, or the root). */
  startCreate(kind: "new-file" | "new-folder", at: string | undefined): void {
    const row = this.snapshot.rows.find((r) => r.path === at);
    const parent = !row ? "." : row.type === "directory" ? row.path : parentOf(row.path);
    if (parent !== ".") this.toggle(parent, true);
    this.editing = { kind, parent };
    this.changed();
  }

  startRename(path: string): void {
    this.editing = { kind: "rename", path };
    this.changed();
  }

  cancelEdit(): void {
    this.editing = undefined;
    this.changed();
  }

  /** Finishes the edit in place with the name typed. */
  async commitEdit(value: string): Promise<void> {
    const edit = this.editing;
    this.cancelEdit();
    const name = value.trim();
    if (!edit || !name) return;
    if (name.includes("/") && edit.kind === "rename") throw new Error("A name cannot contain '/'.");
    if (edit.kind === "rename") {
      if (name === nameOf(edit.path)) return;
      const to = joinPath(parentOf(edit.path), name);
      await this.files.move(edit.path, to);
      this.editor.renamed(edit.path, to);
      this.select(to);
      await this.load(parentOf(edit.path));
      return;
    }
    const path = joinPath(edit.parent, name);
    if (edit.kind === "new-folder") await this.files.mkdir(path);
    else await this.files.save(path, "", null);
    await this.load(edit.parent);
    this.select(path);
    if (edit.kind === "new-file") this.editor.open(path);
  }

  /** Deletes after asking; returns whether it did. */
  async remove(path: string, type: string): Promise<boolean> {
    const what = type === "directory" ? `the folder "${path}" and everything in it` : `"${path}"`;
    if (!confirm(`Delete ${what}? This cannot be undone.`)) return false;
    await this.files.remove(path, type === "directory");
    this.editor.deleted(path);
    this.dropSubtree(path);
    await this.load(parentOf(path));
    return true;
  }

  /** Moves a file or folder into a folder (a drag in the tree). */
  async move(from: string, toDir: string): Promise<void> {
    const to = joinPath(toDir, nameOf(from));
    if (from === to || toDir === from || toDir.startsWith(`${from}/`)) return;
    await this.files.move(from, to);
    this.editor.renamed(from, to);
    await Promise.all([this.load(parentOf(from)), this.load(toDir)]);
    this.select(to);
  }

  /** Uploads files dropped from the desktop into a folder, one at a time, with progress. */
  async uploadFiles(dir: string, files: DroppedFile[]): Promise<void> {
    if (files.length === 0) return;
    const total = files.reduce((sum, f) => sum + f.file.size, 0);
    const state: Upload = { total, sent: 0, files: files.length, done: 0 };
    this.setUpload({ ...state });
    let base = 0;
    try {
      // One file at a time keeps memory flat and progress honest; chunks stream from disk.
      for (const { path, file } of files) {
        await this.files.upload(joinPath(dir, path), file, (sent) => this.setUpload({ ...state, sent: base + sent }));
        base += file.size;
        state.done += 1;
        this.setUpload({ ...state, sent: base });
      }
      this.setUpload(undefined);
    } catch (cause) {
      this.setUpload({ ...state, sent: base, error: errorMessage(cause) });
    }
    await this.load(dir);
  }

  dismissUpload(): void {
    this.setUpload(undefined);
  }

  downloadUrl(path: string): string {
    return this.files.downloadUrl(path);
  }

  private setUpload(upload: Upload | undefined): void {
    this.upload = upload;
    this.changed();
  }

  private setFolder(dir: string, folder: Folder): void {
    this.folders = new Map(this.folders).set(dir, folder);
    this.changed();
  }

  /** Forgets a folder and everything listed under it; with `into`, there (and its entry in its parent) instead. */
  private dropSubtree(path: string, into?: Map<string, Folder>): void {
    const folders = into ?? new Map(this.folders);
    for (const key of [...folders.keys()]) if (key === path || key.startsWith(`${path}/`)) folders.delete(key);
    if (into) {
      const parent = folders.get(parentOf(path));
      const name = nameOf(path);
      if (parent?.entries?.some((e) => e.name === name)) {
        folders.set(parentOf(path), { ...parent, entries: parent.entries.filter((e) => e.name !== name) });
      }
      return;
    }
    if (folders.size === this.folders.size) return;
    this.folders = folders;
    this.changed();
  }

  private changed(): void {
    this.snapshot = this.makeSnapshot();
    for (const listener of this.listeners) listener();
  }

  private makeSnapshot(): TreeSnapshot {
    const previous = this.snapshot as TreeSnapshot | undefined;
    // Rows change only with these; selection and upload progress reuse them (a folder may hold 10,000 entries).
    const same =
      previous?.folders === this.folders &&
      previous.expanded === this.expanded &&
      previous.showHidden === this.showHidden &&
      previous.editing === this.editing;
    return {
      rows: same ? previous.rows : flatten(this.folders, this.expanded, this.showHidden, this.editing),
      folders: this.folders,
      expanded: this.expanded,
      showHidden: this.showHidden,
      selected: this.selected,
      editing: this.editing,
      upload: this.upload,
    };
  }
}

/**
 * Whether a loaded folder lists `path` as a folder (`directory`) or as something else: a "modified" change
 * to it then changes no row. A path the event says nothing about (no `directory`) counts as not listed.
 */
function listedAs(folders: ReadonlyMap<string, Folder>, path: string, directory: boolean | undefined): boolean {
  if (directory === undefined) return false;
  const name = nameOf(path);
  const entry = folders.get(parentOf(path))?.entries?.find((e) => e.name === name);
  return entry !== undefined && (entry.type === "directory") === directory;
}

/** A name an event says was made, in its loaded parent folder, until the folder's next listing says more. */
function addEntry(folders: Map<string, Folder>, path: string, type: FileEntry["type"]): void {
  const parent = folders.get(parentOf(path));
  const name = nameOf(path);
  if (!parent?.entries || parent.entries.some((e) => e.name === name)) return;
  folders.set(parentOf(path), {
    ...parent,
    entries: [...parent.entries, { name, type, size: 0, modifiedAt: Date.now() }],
  });
}

/** Sorted visible rows: folders first, then names in natural order. */
export function flatten(
  folders: ReadonlyMap<string, Folder>,
  expanded: ReadonlySet<string>,
  showHidden: boolean,
  editing: Editing | undefined,
): Row[] {
  const rows: Row[] = [];
  const walk = (dir: string, depth: number) => {
    if (editing && editing.kind !== "rename" && editing.parent === dir) {
      rows.push({ path: joinPath(dir, "\0new"), name: "", type: editing.kind, depth, size: 0 });
    }
    const entries = folders.get(dir)?.entries;
    if (!entries) return;
    const visible = showHidden ? entries : entries.filter((e) => !e.name.startsWith("."));
    const sorted = [...visible].sort(
      (a, b) =>
        Number(b.type === "directory") - Number(a.type === "directory") ||
        a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: "base" }),
    );
    for (const entry of sorted) {
      const path = joinPath(dir, entry.name);
      rows.push({ path, name: entry.name, type: entry.type, depth, size: entry.size });
      if (entry.type === "directory" && expanded.has(path)) walk(path, depth + 1);
    }
  };
  walk(".", 0);
  return rows;
}
