import type { FileChange } from "../../protocol/files";

/**
 * Turns `inotifywait --format '%e\t%w%f'` lines into {@link FileChange}s with
 * workspace-relative paths. Pure, so it is unit-tested. A MOVED_FROM directly
 * followed by a MOVED_TO becomes one "moved"; lone halves become
 * "deleted"/"created" (moves in or out of the watched tree).
 */
export class ChangeParser {
  private pendingFrom: { path: string; directory: boolean } | undefined;

  constructor(
    private readonly root: string,
    private readonly ignore: (path: string) => boolean = isTemporaryName,
  ) {}

  /** Feeds one line; returns the changes it completes. */
  push(line: string): FileChange[] {
    const tab = line.indexOf("\t");
    if (tab === -1) return [];
    const flags = line.slice(0, tab).split(",");
    const path = this.relative(line.slice(tab + 1));
    const out: FileChange[] = [];
    const directory = flags.includes("ISDIR");
    if (flags.includes("MOVED_TO") && this.pendingFrom) {
      const from = this.pendingFrom;
      this.pendingFrom = undefined;
      if (path === undefined || this.ignore(path)) {
        if (!this.ignore(from.path)) out.push({ type: "deleted", path: from.path, directory: from.directory });
      } else if (this.ignore(from.path)) {
        // An atomic save: temporary file renamed onto the real name.
        out.push({ type: "modified", path, directory });
      } else {
        out.push({ type: "moved", path, from: from.path, directory });
      }
      return out;
    }
    out.push(...this.flush());
    if (path === undefined || flags.includes("Q_OVERFLOW")) return out;
    if (flags.includes("MOVED_FROM")) {
      this.pendingFrom = { path, directory };
      return out;
    }
    if (this.ignore(path)) return out;
    if (flags.includes("CREATE") || flags.includes("MOVED_TO")) out.push({ type: "created", path, directory });
    else if (flags.includes("DELETE")) out.push({ type: "deleted", path, directory });
    else if (flags.some((f) => f === "MODIFY" || f === "CLOSE_WRITE" || f === "ATTRIB")) {
      out.push({ type: "modified", path, directory });
    }
    return out;
  }

  /** A MOVED_FROM waits for its MOVED_TO. */
  get hasPendingMove(): boolean {
    return this.pendingFrom !== undefined;
  }

  /** Ends a pending MOVED_FROM that got no MOVED_TO: the entry left the tree. */
  flush(): FileChange[] {
    const from = this.pendingFrom;
    this.pendingFrom = undefined;
    if (!from || this.ignore(from.path)) return [];
    return [{ type: "deleted", path: from.path, directory: from.directory }];
  }

  private relative(absolute: string): string | undefined {
    const trimmed = absolute.replace(/\/+$/, "");
    if (trimmed === this.root) return ".";
    if (!trimmed.startsWith(`${this.root}/`)) return undefined;
    return trimmed.slice(this.root.length + 1);
  }
}

/** Our own temporary names: `.NAME.save-TOKEN` (atomic saves) and `.NAME.upload-TOKEN` (uploads). */
export function isTemporaryName(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return /^\..+\.(save|upload)-[a-z0-9]+$/.test(name);
}

/**
 * Collapses a batch: several events for one path keep the most telling one
 * (created then modified stays created; created then deleted disappears).
 */
export function coalesce(changes: FileChange[]): FileChange[] {
  const byPath = new Map<string, FileChange>();
  for (const change of changes) {
    const previous = byPath.get(change.path);
    if (change.type === "moved") {
      byPath.delete(change.path);
      byPath.set(change.path, change);
      continue;
    }
    if (!previous) {
      byPath.set(change.path, change);
      continue;
    }
    if (previous.type === "created" && change.type === "modified") continue;
    if (previous.type === "created" && change.type === "deleted") {
      byPath.delete(change.path);
      continue;
    }
    if (previous.type === "deleted" && change.type === "created") {
      byPath.set(change.path, { ...change, type: "modified" });
      continue;
    }
    if (previous.type === "modified" && change.type === "modified") continue;
    byPath.delete(change.path);
    byPath.set(change.path, change);
  }
  return [...byPath.values()];
}
