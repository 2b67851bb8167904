/**
 * The workspace's shared documents: one per open text file, loaded from the
 * file on first open, kept in this Durable Object's storage (so a reload, a
 * late joiner or a restarted object gets the current text, unsaved edits
 * included), dropped from memory when nobody has it open. Each edit is
 * stored as it arrives (an update log: the object's output gate holds what
 * it sends until the write is durable, so an edit another writer has seen
 * survives the Worker killed at once), and the whole state replaces the log
 * 250 ms after the last change. It is the only
 * place where the disk meets a shared text:
 *   - a save writes the shared text (atomic, If-Match the version it was
 *     last in step with; a file changed meanwhile is merged first);
 *   - a change on disk (a terminal, git, an agent) reaches the document once,
 *     here, as an edit: a three-way merge with the shared unsaved edits.
 * Plus the presence room: awareness only, who is in the workspace.
 */
import { type CollabSaved, MAX_SHARED_FILE_BYTES } from "../../protocol/collab";
import { ErrorCode } from "../../protocol/errors";
import { concatBytes } from "../bytes";
import { AppError } from "../errors";
import { fileError } from "../files/file-errors";
import type { FileWatcher } from "../files/file-watcher";
import type { Files } from "../files/sandbox-files";
import { saveFile } from "../files/workspace-files";
import { containerPath } from "../files/workspace-path";
import { SharedDocument } from "./shared-document";
import { mergeDiskChange } from "./text-merge";

export interface CollabDeps {
  storage: DurableObjectStorage;
  files: Files;
  watcher: FileWatcher;
  /** Runs a file operation beside others, never beside a snapshot (Lifecycle.shared). */
  shared<T>(operation: () => Promise<T>): Promise<T>;
  /** Makes sure the container runs (a save may come after it slept). */
  wake(): Promise<void>;
}

/** What storage keeps of a document besides its Yjs state: the disk version it was last in step with. */
interface StoredMeta {
  base: string;
  etag: string;
  parts: number;
}

interface OpenFile {
  path: string;
  shared: SharedDocument;
  /** The text on disk the document was last in step with, and its etag. */
  base: string;
  etag: string;
  /** Joiners between their load and their connect: the file is not dropped under them. */
  pending: number;
  /** Disk operations (reads after a change, saves), one at a time. */
  queue: Promise<unknown>;
  persistTimer?: ReturnType<typeof setTimeout>;
  /** How many parts the stored state has (0: none yet). */
  storedParts: number;
  /** The update log: the next update's number, and the first one the stored state does not hold. */
  nextUpdate: number;
  firstUnpersisted: number;
}

/** Storage values stay well under a Durable Object's limit per value. */
const PART_BYTES = 512 * 1024;
const PERSIST_DELAY_MS = 250;

export class WorkspaceCollab {
  private readonly open = new Map<string, Promise<OpenFile>>();
  /** Who is in the workspace: awareness only (every peer is read-only here); made while anyone is in it. */
  private presenceRoom: SharedDocument | undefined;
  private stopWatching: (() => void) | undefined;

  constructor(private readonly deps: CollabDeps) {}

  /**
   * The shared document of a file, loaded when nobody has it open. The
   * caller connects a peer to it and then calls `joined` (or `joined` when
   * it gives up), so it is not dropped in between.
   */
  async document(path: string): Promise<{ shared: SharedDocument; joined(): void; left(): void }> {
    let loading = this.open.get(path);
    if (!loading) {
      loading = this.load(path);
      this.open.set(path, loading);
      loading.catch(() => this.open.delete(path));
    }
    const file = await loading;
    file.pending++;
    let joined = false;
    return {
      shared: file.shared,
      joined: () => {
        if (joined) return;
        joined = true;
        file.pending--;
      },
      left: () => this.dropWhenUnused(file),
    };
  }

  /** The presence room; `left` after its peer disconnected (the room goes when empty: its awareness runs a timer). */
  presence(): { shared: SharedDocument; left(): void } {
    this.presenceRoom ??= new SharedDocument();
    const shared = this.presenceRoom;
    return {
      shared,
      left: () => {
        if (shared.size > 0 || this.presenceRoom !== shared) return;
        shared.destroy();
        this.presenceRoom = undefined;
      },
    };
  }

  /** Writes the shared text of an open file to disk; a change on disk since is merged in first. */
  async save(path: string): Promise<CollabSaved> {
    const loading = this.open.get(path);
    if (!loading) {
      throw new AppError(
        ErrorCode.INVALID_STATE,
        `Nobody has "${path}" open as a shared document: open it first, or save it through the files API.`,
      );
    }
    const file = await loading;
    return this.serially(file, () =>
      this.deps.shared(async () => {
        await this.deps.wake();
        try {
          return await this.write(file);
        } catch (error) {
          if (!(error instanceof AppError && error.code === ErrorCode.FILE_CHANGED)) throw error;
          // Changed on disk after the document last read it: merge that change, then save the merge.
          await this.takeDisk(file);
          return await this.write(file);
        }
      }),
    );
  }

  /** Every open document, persisted (before the object goes, or a test's look at storage). */
  async flush(): Promise<void> {
    for (const loading of this.open.values()) {
      const file = await loading.catch(() => undefined);
      if (file) await this.persist(file);
    }
  }

  // --- inside ---

  private async load(path: string): Promise<OpenFile> {
    const { storage } = this.deps;
    const meta = await storage.get<StoredMeta>(metaKey(path));
    let state: Uint8Array | undefined;
    // The disk version stored beside the state (or, before any state, beside the first logged edit).
    let stored = meta;
    if (meta && meta.parts > 0) {
      const keys = Array.from({ length: meta.parts }, (_, i) => partKey(path, i));
      const parts = await storage.get<Uint8Array>(keys);
      if (keys.every((key) => parts.has(key))) state = concatBytes(keys.map((key) => parts.get(key) as Uint8Array));
      else stored = undefined;
    }
    // Edits stored after the state (the object stopped before it stored the state again), in order.
    const logged = await storage.list<Uint8Array>({ prefix: updatePrefix(path) });
    const numbers = [...logged.keys()].map((key) => Number(key.slice(updatePrefix(path).length)));
    const disk = await this.deps.shared(() => this.readDisk(path));
    const shared = new SharedDocument(state);
    // Yjs updates apply in any order and more than once: one the state already holds changes nothing.
    for (const update of logged.values()) shared.apply(update);
    const next = numbers.length > 0 ? Math.max(...numbers) + 1 : 0;
    const file: OpenFile = {
      path,
      shared,
      base: stored?.base ?? "",
      etag: stored?.etag ?? "",
      storedParts: state ? (stored?.parts ?? 0) : 0,
      pending: 0,
      queue: Promise.resolve(),
      nextUpdate: next,
      firstUnpersisted: numbers.length > 0 ? Math.min(...numbers) : next,
    };
    // Each edit is logged before it is sent on (the put is not awaited: the output gate holds the
    // edit's broadcast to the other writers until it is stored).
    shared.log = (update) => {
      this.deps.storage
        .put(updateKey(path, file.nextUpdate++), update)
        .catch((error) => console.error(`collab: logging an edit of ${path}: ${String(error)}`));
      this.schedulePersist(file);
    };
    // A new document takes the file's text; a stored one takes what changed on disk since (merged).
    this.applyDisk(file, disk);
    this.watch();
    return file;
  }

  /** The file's text and etag; refuses what cannot be shared. */
  private async readDisk(path: string): Promise<{ text: string; etag: string }> {
    const { response, stat } = await this.deps.files
      .readFileWithStat(containerPath(path))
      .catch((error: unknown) => Promise.reject(fileError(error, path)));
    if (stat.type !== "file" || Number(stat.size) > MAX_SHARED_FILE_BYTES) {
      await response.body?.cancel();
      throw new AppError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        `"${path}" is not a text file of at most ${MAX_SHARED_FILE_BYTES} bytes, so it is not shared.`,
      );
    }
    const bytes = await response.arrayBuffer();
    try {
      return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes), etag: stat.etag };
    } catch {
      throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `"${path}" is not UTF-8 text, so it is not shared.`);
    }
  }

  /** Takes a version of the disk into the document: the change since `base`, merged with the shared edits. */
  private applyDisk(file: OpenFile, disk: { text: string; etag: string }): void {
    if (disk.etag === file.etag) return;
    if (disk.text !== file.base) {
      file.shared.replaceText(mergeDiskChange(file.base, disk.text, file.shared.text.toString()));
    }
    file.base = disk.text;
    file.etag = disk.etag;
    this.storeMeta(file);
  }

  /** Reads the disk again after a change event (or a refused save). A file deleted leaves the document as it is. */
  private async takeDisk(file: OpenFile): Promise<void> {
    try {
      this.applyDisk(file, await this.readDisk(file.path));
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.FILE_NOT_FOUND) {
        // The next save makes the file again.
        file.etag = "";
        return;
      }
      console.error(`collab: reading ${file.path} after a change failed: ${String(error)}`);
    }
  }

  private async write(file: OpenFile): Promise<CollabSaved> {
    const { files } = this.deps;
    const text = file.shared.text.toString();
    const stat = await saveFile(files, file.path, text, file.etag);
    file.base = text;
    file.etag = stat.etag;
    this.storeMeta(file);
    return {
      file: {
        path: file.path,
        type: "file",
        size: Number(stat.size),
        modifiedAt: stat.modifiedAt.getTime(),
        etag: stat.etag,
      },
      text,
    };
  }

  /** Listens to the file watcher while any document is open. */
  private watch(): void {
    this.stopWatching ??= this.deps.watcher.listen({
      changes: (changes) => {
        const touched = new Set(changes.flatMap((change) => [change.path, change.from]));
        for (const [path, loading] of this.open) {
          if (touched.has(path))
            void loading.then((file) => this.serially(file, () => this.takeDisk(file))).catch(() => {});
        }
      },
      resync: () => {
        for (const loading of this.open.values()) {
          void loading.then((file) => this.serially(file, () => this.takeDisk(file))).catch(() => {});
        }
      },
    });
  }

  private serially<T>(file: OpenFile, operation: () => Promise<T>): Promise<T> {
    const next = file.queue.then(operation, operation);
    file.queue = next.catch(() => {});
    return next;
  }

  private dropWhenUnused(file: OpenFile): void {
    if (file.shared.size > 0 || file.pending > 0) return;
    void this.serially(file, async () => {
      await this.persist(file);
      if (file.shared.size > 0 || file.pending > 0 || !this.open.has(file.path)) return;
      this.open.delete(file.path);
      file.shared.destroy();
      if (this.open.size === 0) {
        this.stopWatching?.();
        this.stopWatching = undefined;
      }
    });
  }

  /**
   * The disk version the document is in step with, stored now: in the same turn as the edit that took
   * that version in, so storage never holds one without the other (a base without its edit would merge
   * the disk's change in twice after a restart).
   */
  private storeMeta(file: OpenFile): void {
    const meta: StoredMeta = { base: file.base, etag: file.etag, parts: file.storedParts };
    this.deps.storage
      .put(metaKey(file.path), meta)
      .catch((error) => console.error(`collab: storing ${file.path}'s disk version: ${String(error)}`));
  }

  private schedulePersist(file: OpenFile): void {
    if (file.persistTimer) return;
    file.persistTimer = setTimeout(() => {
      file.persistTimer = undefined;
      void this.persist(file).catch((error) => console.error(`collab: storing ${file.path}: ${String(error)}`));
    }, PERSIST_DELAY_MS);
  }

  private async persist(file: OpenFile): Promise<void> {
    if (file.persistTimer) {
      clearTimeout(file.persistTimer);
      file.persistTimer = undefined;
    }
    // Every logged update below this number is in the state encoded now (updates are logged as they apply).
    const upTo = file.nextUpdate;
    const state = file.shared.encode();
    const parts = Math.max(1, Math.ceil(state.byteLength / PART_BYTES));
    const entries: Record<string, unknown> = {
      [metaKey(file.path)]: { base: file.base, etag: file.etag, parts } satisfies StoredMeta,
    };
    for (let i = 0; i < parts; i++) entries[partKey(file.path, i)] = state.slice(i * PART_BYTES, (i + 1) * PART_BYTES);
    // At most 128 entries in one put.
    const keys = Object.keys(entries);
    for (let i = 0; i < keys.length; i += 128) {
      await this.deps.storage.put(Object.fromEntries(keys.slice(i, i + 128).map((key) => [key, entries[key]])));
    }
    // The state holds them now: the log before `upTo` goes (128 keys a call, as puts).
    const logged = Array.from({ length: upTo - file.firstUnpersisted }, (_, i) =>
      updateKey(file.path, file.firstUnpersisted + i),
    );
    for (let i = 0; i < logged.length; i += 128) await this.deps.storage.delete(logged.slice(i, i + 128));
    file.storedParts = parts;
    file.firstUnpersisted = Math.max(file.firstUnpersisted, upTo);
  }
}

function metaKey(path: string): string {
  return `collab:meta:${path}`;
}

function partKey(path: string, index: number): string {
  return `collab:part:${index}:${path}`;
}

/** A path never holds NUL, so one file's prefix is never the start of another's. */
function updatePrefix(path: string): string {
  return `collab:update:${path}\u0000`;
}

/** Numbers padded, so storage lists them in order. */
function updateKey(path: string, index: number): string {
  return `${updatePrefix(path)}${String(index).padStart(12, "0")}`;
}
