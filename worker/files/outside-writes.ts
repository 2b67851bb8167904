import type { FileChange } from "../../protocol/files";
import { describe } from "../errors";
import { IDE_STATE_DIR, SNAPSHOT_MARKER, WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox } from "../sandbox/sandbox";
import type { WatchListener } from "./file-watcher";
import { emptyStream } from "./journaled-files";
import { SandboxFileError } from "./sandbox-file-error";
import type { Files } from "./sandbox-files";
import { isTemporary, type JournalOp, type SaveJournal } from "./save-journal";

/**
 * Changes made outside the IDE (a terminal's programs, `git`, a dev server)
 * reach the save journal within one pass (30 s; issue 45). The IDE's own
 * saves are journaled as they are acknowledged (journaled-files.ts); what
 * other programs write under /workspace is found here:
 *
 * - every pass, `find -cnewer` lists the files whose status changed since the
 *   previous pass or, when one came since, since the last snapshot began (a
 *   file's ctime changes on every write, rename and extraction, and no
 *   program can set it back);
 * - each is hashed in the container (`sha256sum`), and read and put in R2 as a
 *   journal write unless the journal's latest write of that path has the same
 *   SHA-256 (the IDE's own saves, a replay's writes): one R2 PUT per file a
 *   program changed, none for what the IDE journaled already;
 * - renames and deletions come from the file watcher's events (find cannot see
 *   what is gone), noted in the order they happened;
 * - a pass that finds more than the limits (an `npm install`, a `git clone`)
 *   takes a checkpoint instead: a snapshot holds everything at once.
 *
 * A replay over the latest snapshot then puts it all back. Not covered: what
 * changes outside /workspace (installed packages, `/root`), which waits for the
 * next checkpoint, and renames or deletions made while the watcher was down.
 */

export interface OutsideWritesLimits {
  /** Files changed in one pass beyond which a checkpoint is taken instead. */
  files: number;
  /** Bytes changed in one pass beyond which a checkpoint is taken instead. */
  bytes: number;
}

/** The alarm task of the passes (worker/alarms.ts), every `outsideWritesMs` while a container runs. */
export const OUTSIDE_WRITES_TASK = "outside-writes";

export const OUTSIDE_WRITES_LIMITS: OutsideWritesLimits = { files: 200, bytes: 64 * 1024 * 1024 };

/** Touched at each pass: what changed after it is the next pass's work. */
export const PASS_MARKER = `${IDE_STATE_DIR}/journaled-at`;

/** Caches a tool makes again by itself: never journaled (Vite's pre-bundled deps are rewritten at each start). */
const PRUNED = ["*/node_modules/.vite", "*/node_modules/.cache", "*/.vite-temp"];

/** One changed file, as the pass's listing gives it. */
export interface ChangedFile {
  path: string;
  size: number;
}

/** What one pass did. */
export type PassOutcome =
  | { kind: "quiet" }
  | { kind: "journaled"; writes: number; skipped: number; renames: number; deletes: number }
  | { kind: "checkpoint"; files: number; bytes: number };

export interface OutsideWritesDeps {
  sandbox: Pick<Sandbox, "stdout">;
  files: Pick<Files, "readFileWithStat">;
  journal: Pick<
    SaveJournal,
    "enabled" | "stage" | "recordWrite" | "recordDelete" | "recordRename" | "discard" | "list"
  >;
  /** Whether a container runs now; a pass never starts one. */
  isRunning(): boolean;
  /** Runs the pass beside file operations, never beside a snapshot (see DiskLock). */
  shared<T>(operation: () => Promise<T>): Promise<T>;
  /** Takes a snapshot now (outside the shared lock). */
  checkpoint(): Promise<void>;
  tag: string;
  limits?: OutsideWritesLimits;
}

/** What the watcher saw, waiting for the next pass. */
type Seen =
  | { kind: "create"; path: string }
  | { kind: "rename"; from: string; to: string }
  | { kind: "delete"; path: string };

export class OutsideWrites implements WatchListener {
  private seen: Seen[] = [];
  private running: Promise<PassOutcome> | undefined;

  constructor(private readonly deps: OutsideWritesDeps) {}

  /** The file watcher's batches: renames and deletions are kept for the next pass. */
  changes(changes: FileChange[]): void {
    for (const change of changes) {
      const path = absolute(change.path);
      if (change.type === "moved" && change.from !== undefined) {
        this.seen.push({ kind: "rename", from: absolute(change.from), to: path });
      } else if (change.type === "deleted") {
        this.seen.push({ kind: "delete", path });
      } else if (change.type === "created") {
        this.seen.push({ kind: "create", path });
      }
    }
  }

  /** Events were lost: renames and deletions since then are not known (the next checkpoint holds them). */
  resync(): void {}

  /** A container started: it marks where its changes begin unless it came back with its mark. */
  async started(): Promise<void> {
    this.seen = [];
    await this.deps.sandbox
      .stdout(["sh", "-c", `mkdir -p ${IDE_STATE_DIR} && { [ -e ${PASS_MARKER} ] || touch ${PASS_MARKER}; }`], {
        wake: false,
        waitMs: 0,
      })
      .catch((error) => console.warn(`${this.deps.tag}: outside writes: marking the start: ${describe(error)}`));
  }

  /**
   * A snapshot completed (inside its exclusive turn, so no pass runs): it
   * holds everything changed before it began, so the next pass starts there.
   * Never after a snapshot that failed, whose marker was touched all the same.
   */
  async snapshotTaken(): Promise<void> {
    await this.deps.sandbox
      .stdout(
        [
          "sh",
          "-c",
          `[ -e ${SNAPSHOT_MARKER} ] && [ ${SNAPSHOT_MARKER} -nt ${PASS_MARKER} ] && touch -r ${SNAPSHOT_MARKER} ${PASS_MARKER}; exit 0`,
        ],
        { wake: false, waitMs: 0 },
      )
      .catch((error) => console.warn(`${this.deps.tag}: outside writes: after a snapshot: ${describe(error)}`));
    // What the watcher saw made is in the snapshot now: a move or deletion of it is no longer one of
    // something new. Its moves and deletions stay: one made during the snapshot may not be in it, and noting
    // again one that is changes nothing (a replay's move of a missing path and deletion of one are no-ops).
    this.seen = this.seen.filter((event) => event.kind !== "create");
  }

  /** One pass; a pass asked for while one runs shares it. */
  pass(): Promise<PassOutcome> {
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async run(): Promise<PassOutcome> {
    const { journal, isRunning } = this.deps;
    if (!isRunning() || !journal.enabled) return { kind: "quiet" };
    const limits = this.deps.limits ?? OUTSIDE_WRITES_LIMITS;
    const outcome = await this.deps.shared(async (): Promise<PassOutcome> => {
      if (!isRunning()) return { kind: "quiet" };
      const changed = parseListing(await this.list());
      const bytes = changed.reduce((sum, file) => sum + file.size, 0);
      if (changed.length > limits.files || bytes > limits.bytes)
        return { kind: "checkpoint", files: changed.length, bytes };
      const seen = this.seen.splice(0);
      if (changed.length === 0 && seen.length === 0) {
        await this.advance();
        return { kind: "quiet" };
      }
      try {
        const result = await this.journalChanges(changed, seen);
        await this.advance();
        return result;
      } catch (error) {
        // The mark stays where it was: the next pass finds the same files again.
        this.seen.unshift(...seen);
        throw error;
      }
    });
    if (outcome.kind === "checkpoint") {
      console.warn(
        `${this.deps.tag}: outside writes: ${outcome.files} file(s), ${outcome.bytes} bytes changed in one pass; taking a checkpoint instead`,
      );
      // The snapshot moves the mark on (snapshotTaken); one that fails leaves it, and the next pass tries again.
      await this.deps.checkpoint();
    }
    return outcome;
  }

  /** Files under /workspace whose status changed since the last pass and since the last snapshot began. */
  private list(): Promise<string> {
    const pruned = PRUNED.map((pattern) => `-path '${pattern}'`).join(" -o ");
    const script = [
      `mkdir -p ${IDE_STATE_DIR}`,
      `touch ${PASS_MARKER}.next`,
      `[ -e ${PASS_MARKER} ] || touch -d @0 ${PASS_MARKER}`,
      `find ${WORKSPACE_ROOT} -xdev \\( ${pruned} \\) -prune -o -type f -cnewer ${PASS_MARKER} -printf '%s\\t%p\\0' 2>/dev/null`,
      "exit 0",
    ].join("\n");
    return this.deps.sandbox.stdout(["sh", "-c", script], { wake: false, waitMs: 0 });
  }

  /** The listing's files are in the journal: the next pass starts where this one began. */
  private async advance(): Promise<void> {
    await this.deps.sandbox.stdout(
      ["sh", "-c", `[ -e ${PASS_MARKER}.next ] && mv ${PASS_MARKER}.next ${PASS_MARKER}; exit 0`],
      {
        wake: false,
        waitMs: 0,
      },
    );
  }

  private async journalChanges(changed: ChangedFile[], seen: Seen[]): Promise<PassOutcome> {
    const { journal } = this.deps;
    const outcome = { kind: "journaled" as const, writes: 0, skipped: 0, renames: 0, deletes: 0 };
    // Renames and deletions first, in the order they happened: a write found now is newer than any of them.
    const gone = new Set(await this.missing(seen.flatMap((event) => (event.kind === "delete" ? [event.path] : []))));
    const noted = await journal.list();
    for (const event of worthNoting(seen, new Set(noted.map((op) => op.path)))) {
      // The IDE's own moves and deletions are journaled as they are done: the watcher saw them too.
      if (isNoted(noted, event)) continue;
      if (event.kind === "rename") {
        await journal.recordRename(event.from, event.to);
        outcome.renames++;
      } else if (gone.has(event.path)) {
        await journal.recordDelete(event.path);
        outcome.deletes++;
      }
    }
    const latest = latestWrites(await journal.list());
    const hashes = await this.hashes(changed.map((file) => file.path));
    for (const file of changed) {
      if (!this.deps.isRunning()) throw new Error("the container stopped during the pass");
      const hash = hashes.get(file.path);
      // Gone since the listing (the watcher's deletion says so), or these bytes are journaled already.
      if (hash === undefined || hash === latest.get(file.path) || !(await this.journalFile(file))) outcome.skipped++;
      else outcome.writes++;
    }
    return outcome;
  }

  /** Puts one file in the journal; false when it went since the listing. */
  private async journalFile(file: ChangedFile): Promise<boolean> {
    const { journal } = this.deps;
    let opened: Awaited<ReturnType<Files["readFileWithStat"]>>;
    try {
      opened = await this.deps.files.readFileWithStat(file.path);
    } catch (error) {
      if (SandboxFileError.is(error) && ["ENOENT", "EISDIR", "ENOTDIR"].includes(error.code)) return false;
      throw error;
    }
    const staged = journal.stage(opened.response.body ?? emptyStream(), Number(opened.stat.size));
    const { size, sha256 } = await staged.done;
    await journal.recordWrite(file.path, staged.key, size, sha256);
    return true;
  }

  /** Each path's SHA-256, from `sha256sum` in the container; a path that went meanwhile has none. */
  private async hashes(paths: string[]): Promise<Map<string, string>> {
    if (paths.length === 0) return new Map();
    const out = await this.deps.sandbox.stdout(
      ["sh", "-c", 'sha256sum -z -- "$@" 2>/dev/null; exit 0', "sh", ...paths],
      { wake: false, waitMs: 0 },
    );
    return parseHashes(out);
  }

  /** Which of `paths` no longer exist. */
  private async missing(paths: string[]): Promise<string[]> {
    if (paths.length === 0) return [];
    const out = await this.deps.sandbox.stdout(
      ["sh", "-c", `for p; do [ -e "$p" ] || [ -L "$p" ] || printf '%s\\0' "$p"; done`, "sh", ...paths],
      { wake: false, waitMs: 0 },
    );
    return out.split("\0").filter(Boolean);
  }
}

/**
 * The renames and deletions a replay needs, in order. One of something made
 * since the last pass is left out (git's `index.lock` renamed to `index`, an
 * editor's temporary file): what it made is listed by the pass anyway, and a
 * replay has nothing to move or delete. Unless the journal holds it already
 * (`journaled`: its event came late, after the pass that put it there).
 */
export function worthNoting(
  seen: Seen[],
  journaled: ReadonlySet<string> = new Set(),
): Exclude<Seen, { kind: "create" }>[] {
  const fresh = new Set<string>();
  const isFresh = (path: string) => [...fresh].some((made) => path === made || path.startsWith(`${made}/`));
  const out: Exclude<Seen, { kind: "create" }>[] = [];
  for (const event of seen) {
    if (event.kind === "create") {
      if (!journaled.has(event.path)) fresh.add(event.path);
    } else if (event.kind === "rename") {
      if (isFresh(event.from)) fresh.add(event.to);
      else out.push(event);
    } else if (isFresh(event.path)) fresh.delete(event.path);
    else out.push(event);
  }
  return out;
}

/** Whether the journal's latest operation on the event's paths is that event already (the IDE did it). */
function isNoted(ops: JournalOp[], event: Exclude<Seen, { kind: "create" }>): boolean {
  const paths = event.kind === "rename" ? [event.from, event.to] : [event.path];
  const last = [...ops]
    .reverse()
    .find((op) => paths.includes(op.path) || (op.to !== undefined && paths.includes(op.to)));
  if (!last) return false;
  return event.kind === "rename"
    ? last.kind === "rename" && last.path === event.from && last.to === event.to
    : last.kind === "delete" && last.path === event.path;
}

/** What runs the passes: the object's alarm, and word of each container start. */
export interface PassSchedule {
  alarms: {
    register(name: string, task: () => Promise<void>): void;
    schedule(name: string, at: number): Promise<void>;
  };
  lifecycle: { readonly isRunning: boolean; onRunning(listener: () => void): () => void };
  /** Milliseconds between passes (`outsideWritesMs`). */
  interval(): Promise<number>;
}

/**
 * A pass one interval after each start, then one interval after the last while
 * a container runs. An alarm, not a timer: an object evicted meanwhile is
 * woken for it.
 */
export function runPasses(writes: OutsideWrites, { alarms, lifecycle, interval }: PassSchedule): void {
  const next = async () => alarms.schedule(OUTSIDE_WRITES_TASK, Date.now() + (await interval()));
  lifecycle.onRunning(() => {
    void writes
      .started()
      .then(next)
      .catch((error) => console.error(`outside writes: scheduling a pass: ${describe(error)}`));
  });
  alarms.register(OUTSIDE_WRITES_TASK, async () => {
    if (!lifecycle.isRunning) return;
    try {
      await writes.pass();
    } catch (error) {
      // Nothing is dropped: the mark stays, and the next pass finds the same files.
      console.error(`outside writes: a pass failed: ${describe(error)}`);
    }
    if (lifecycle.isRunning) await next();
  });
}

/** `find -printf '%s\t%p\0'` output: size, a tab, the path, NUL. */
export function parseListing(output: string): ChangedFile[] {
  const files: ChangedFile[] = [];
  for (const entry of output.split("\0")) {
    const tab = entry.indexOf("\t");
    if (tab <= 0) continue;
    const size = Number(entry.slice(0, tab));
    const path = entry.slice(tab + 1);
    if (!Number.isFinite(size) || !path.startsWith(`${WORKSPACE_ROOT}/`) || isTemporary(path)) continue;
    files.push({ path, size });
  }
  return files;
}

/** `sha256sum -z` output: the hash, two spaces, the path, NUL (no escaping with -z). */
export function parseHashes(output: string): Map<string, string> {
  const hashes = new Map<string, string>();
  for (const entry of output.split("\0")) {
    const match = /^([0-9a-f]{64}) [ *](.+)$/s.exec(entry);
    if (match?.[1] && match[2]) hashes.set(match[2], match[1]);
  }
  return hashes;
}

/**
 * Each path's content as the journal would replay it: the SHA-256 of its
 * latest write, carried along by renames; unknown after a deletion, or when
 * something was renamed over it.
 */
export function latestWrites(ops: JournalOp[]): Map<string, string> {
  const latest = new Map<string, string>();
  for (const op of [...ops].sort((a, b) => a.seq - b.seq)) {
    if (op.kind === "write") {
      if (op.sha256) latest.set(op.path, op.sha256);
      continue;
    }
    const moved = new Map<string, string>();
    for (const [path, sha] of latest) {
      const under = path === op.path || path.startsWith(`${op.path}/`);
      if (under || (op.to && (path === op.to || path.startsWith(`${op.to}/`)))) latest.delete(path);
      // A rename carries what was written to its new place.
      if (under && op.kind === "rename" && op.to) moved.set(op.to + path.slice(op.path.length), sha);
    }
    for (const [path, sha] of moved) latest.set(path, sha);
  }
  return latest;
}

function absolute(path: string): string {
  return path.startsWith("/") ? path : `${WORKSPACE_ROOT}/${path}`;
}
