import { ErrorCode } from "../../protocol/errors";
import { AppError, describe } from "../errors";
import { deleteUnderPrefix, hashing, uploadInParts } from "../r2-parts";

/**
 * The journal of the IDE's own writes ("saved means saved", issue 45). A
 * snapshot is taken at most every few minutes; a container that vanishes in
 * between (a host failure, `docker kill`) comes back from that snapshot. So
 * every write the IDE acknowledges (the editor's save, co-editing's save, an
 * upload, an agent's write_file) is also put in R2 before it is acknowledged,
 * and deletions and renames done through the IDE are noted beside them, so a
 * replay never brings back what was deleted. A start from a snapshot, a backup
 * or the template replays what is newer than what it started from, in order,
 * before the workspace counts as running. A snapshot drops what it holds.
 *
 *   R2 (the BACKUPS bucket): `journal/{durable object id}/{uuid}`, one object per write
 *   Durable Object storage:  `journal:op:{seq}` → {@link JournalOp}, `journal:seq`
 */

/** One operation done through the IDE, in the order it was acknowledged. */
export interface JournalOp {
  seq: number;
  kind: "write" | "delete" | "rename";
  /** An absolute container path (the write's target, the deleted path, a rename's source). */
  path: string;
  /** A rename's destination. */
  to?: string;
  /** A write's R2 object. */
  key?: string;
  size?: number;
  sha256?: string;
  /** When it was acknowledged (ms since epoch): a snapshot begun after it holds it. */
  at: number;
}

export interface JournalLimits {
  /** Bytes of writes kept before a checkpoint is asked for. */
  bytes: number;
  /** Operations kept before a checkpoint is asked for. */
  ops: number;
}

/**
 * Beyond these the journal asks for a checkpoint at once (which empties it)
 * rather than growing: a workspace that writes 1 GiB through the IDE in
 * minutes pays a snapshot, not an ever larger replay.
 */
export const JOURNAL_LIMITS: JournalLimits = { bytes: 1024 * 1024 * 1024, ops: 500 };

export const OP_PREFIX = "journal:op:";
const SEQ_KEY = "journal:seq";

export function opKey(seq: number): string {
  return `${OP_PREFIX}${String(seq).padStart(12, "0")}`;
}

/**
 * The earlier writes a new write or deletion of `path` makes useless: writes
 * of that path (or, for a deletion, under it) with no rename after them (a
 * rename may have moved the file a write made, so its content still counts).
 */
export function superseded(ops: JournalOp[], next: Pick<JournalOp, "kind" | "path">): JournalOp[] {
  if (next.kind === "rename") return [];
  const lastRename = Math.max(0, ...ops.filter((op) => op.kind === "rename").map((op) => op.seq));
  return ops.filter(
    (op) =>
      op.kind === "write" &&
      op.seq > lastRename &&
      (op.path === next.path || (next.kind === "delete" && op.path.startsWith(`${next.path}/`))),
  );
}

/** What a container that started from something saved at `since` lacks: later operations, in order. */
export function toReplay(ops: JournalOp[], since: number): JournalOp[] {
  return ops.filter((op) => op.at >= since).sort((a, b) => a.seq - b.seq);
}

/** What a snapshot begun at `savedAt` holds (everything acknowledged before it: saves wait for it, and it for them). */
export function heldBy(ops: JournalOp[], savedAt: number): JournalOp[] {
  return ops.filter((op) => op.at < savedAt);
}

export function isFull(ops: JournalOp[], limits: JournalLimits): boolean {
  const bytes = ops.reduce((sum, op) => sum + (op.size ?? 0), 0);
  return bytes > limits.bytes || ops.length > limits.ops;
}

/** The IDE's own temporary files (`.NAME.save-TOKEN`, `.NAME.upload-TOKEN`, temporary-path.ts): never journaled. */
export function isTemporary(path: string): boolean {
  return /(^|\/)\.[^/]+\.(save|upload)-[a-z0-9]+$/.test(path);
}

/** A write's bytes on their way to R2; `done` settles when they are all there. */
export interface StagedWrite {
  key: string;
  done: Promise<{ size: number; sha256: string }>;
}

/** The Durable Object storage calls the journal makes. */
export interface JournalStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string | string[]): Promise<boolean | number>;
  list<T>(options: { prefix: string }): Promise<Map<string, T>>;
}

export interface SaveJournalDeps {
  /** The R2 bucket; without one the journal is off and writes are as durable as the last snapshot. */
  bucket: () => R2Bucket | undefined;
  storage: JournalStorage;
  /** `journal/{durable object id}/` */
  prefix: string;
  tag: string;
  /** Called when the journal went past its limits: take a checkpoint soon. */
  onFull: () => void;
  limits?: JournalLimits;
}

export class SaveJournal {
  /** Changes to the index, one after another (a sequence number and its supersessions belong together). */
  private queue: Promise<unknown> = Promise.resolve();
  private warnedOff = false;

  constructor(private readonly deps: SaveJournalDeps) {}

  /** Whether writes are journaled (the deployment has the bucket). */
  get enabled(): boolean {
    const on = this.deps.bucket() !== undefined;
    if (!on && !this.warnedOff) {
      this.warnedOff = true;
      console.warn(
        `${this.deps.tag}: no BACKUPS bucket, so saves are not journaled: a container lost between checkpoints loses them`,
      );
    }
    return on;
  }

  /**
   * Starts putting `bytes` in R2 under a new key. With `length` (a body of
   * known size) one PUT; without, a multipart upload. The caller awaits
   * `done` beside its container write, then {@link recordWrite} or
   * {@link discard}.
   */
  stage(bytes: ReadableStream<Uint8Array>, length?: number): StagedWrite {
    const bucket = this.deps.bucket();
    const key = `${this.deps.prefix}${crypto.randomUUID()}`;
    if (!bucket) throw new Error("no bucket");
    const done = (async () => {
      if (length === undefined) return uploadInParts(bucket, key, bytes, async () => {});
      const hashed = hashing(bytes);
      await bucket.put(key, hashed.stream.pipeThrough(new FixedLengthStream(length)));
      return hashed.result();
    })().catch((error: unknown) => {
      throw new AppError(
        ErrorCode.JOURNAL_UNAVAILABLE,
        `The file was written, but could not be kept safe in R2 (${describe(error)}), so it could be lost if the container failed before the next checkpoint: save again.`,
      );
    });
    done.catch(() => {});
    return { key, done };
  }

  /** The write of `path` acknowledged now, its bytes under `key`. */
  recordWrite(path: string, key: string, size: number, sha256: string): Promise<void> {
    return this.record({ kind: "write", path, key, size, sha256 });
  }

  recordDelete(path: string): Promise<void> {
    if (isTemporary(path) || !this.enabled) return Promise.resolve();
    return this.record({ kind: "delete", path });
  }

  recordRename(path: string, to: string): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    return this.record({ kind: "rename", path, to });
  }

  /** A staged write that was not acknowledged (the container refused it): its object goes. */
  async discard(key: string): Promise<void> {
    await this.deps
      .bucket()
      ?.delete(key)
      .catch((error) => console.warn(`${this.deps.tag}: journal: removing ${key}: ${describe(error)}`));
  }

  async list(): Promise<JournalOp[]> {
    const entries = await this.deps.storage.list<JournalOp>({ prefix: OP_PREFIX });
    return [...entries.values()].sort((a, b) => a.seq - b.seq);
  }

  /**
   * Puts back, in order, what was acknowledged at or after `since` (what the
   * new container started from was saved then). `apply` writes, deletes and
   * renames in the container; a write's body comes from R2. A write whose
   * object is missing is reported and skipped; R2 failing throws (the start
   * fails, says why, and tries again: nothing is dropped).
   */
  async replay(
    since: number,
    apply: (op: JournalOp, body?: ReadableStream<Uint8Array>) => Promise<void>,
  ): Promise<number> {
    const ops = toReplay(await this.list(), since);
    if (ops.length === 0) return 0;
    const bucket = this.deps.bucket();
    for (const op of ops) {
      if (op.kind !== "write") {
        await apply(op);
        continue;
      }
      const object = op.key ? await bucket?.get(op.key) : null;
      if (!object) {
        console.error(`${this.deps.tag}: journal: the saved bytes of ${op.path} (${op.key}) are missing; not put back`);
        continue;
      }
      await apply(op, object.body);
    }
    console.warn(`${this.deps.tag}: journal: put back ${ops.length} operation(s) acknowledged since ${since}`);
    return ops.length;
  }

  /** A snapshot begun at `savedAt` completed: what it holds is dropped, in storage and in R2. */
  dropThrough(savedAt: number): Promise<void> {
    return this.serially(async () => {
      const held = heldBy(await this.list(), savedAt);
      await this.drop(held);
    });
  }

  /** The workspace is deleted: everything under the prefix goes. */
  async deleteAll(): Promise<void> {
    const bucket = this.deps.bucket();
    if (bucket) await deleteUnderPrefix(bucket, this.deps.prefix);
    const keys = [...(await this.deps.storage.list({ prefix: OP_PREFIX })).keys()];
    if (keys.length > 0) await this.deps.storage.delete(keys);
    await this.deps.storage.delete(SEQ_KEY);
  }

  private record(op: Omit<JournalOp, "seq" | "at">): Promise<void> {
    return this.serially(async () => {
      const ops = await this.list();
      const seq = ((await this.deps.storage.get<number>(SEQ_KEY)) ?? 0) + 1;
      const entry: JournalOp = { ...op, seq, at: Date.now() };
      await this.deps.storage.put(SEQ_KEY, seq);
      await this.deps.storage.put(opKey(seq), entry);
      const old = superseded(ops, entry);
      await this.drop(old);
      const kept = [...ops.filter((candidate) => !old.includes(candidate)), entry];
      if (isFull(kept, this.deps.limits ?? JOURNAL_LIMITS)) this.deps.onFull();
    });
  }

  private async drop(ops: JournalOp[]): Promise<void> {
    if (ops.length === 0) return;
    await this.deps.storage.delete(ops.map((op) => opKey(op.seq)));
    const keys = ops.flatMap((op) => (op.key ? [op.key] : []));
    if (keys.length > 0) {
      // An object left behind costs storage, not correctness: deleteAll takes it with the workspace.
      await this.deps
        .bucket()
        ?.delete(keys)
        .catch((error) =>
          console.warn(`${this.deps.tag}: journal: removing ${keys.length} object(s): ${describe(error)}`),
        );
    }
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }
}
