/**
 * The file tools: the same `Files` layer and path checks as the files API
 * (worker/files/), never a shell, so a path is confined to /workspace the
 * same way (`..` and absolute paths refused, symbolic links leading out
 * refused in the container, in the process that opens the file).
 */
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { fileError } from "../files/file-errors";
import type { Files, SandboxFileStat } from "../files/sandbox-files";
import { temporaryPath } from "../files/temporary-path";
import { checkWorkspacePath, containerPath, parentPath } from "../files/workspace-path";
import type { ToolOutput } from "./tool-output";

/** A file larger than this is not read whole (the answer says how to read it). */
export const READ_MAX_BYTES = 8 * 1024 * 1024;
/** A read answers at most this many characters (the note says which lines were shown). */
export const READ_MAX_CHARS = 200_000;
const LIST_MAX_ENTRIES = 2_000;

/** `Files` as the tools use it: checked paths, Linux errors as AppErrors, changes beside saves never. */
export class WorkspaceFiles {
  constructor(
    readonly files: Files,
    /** Runs a file operation beside others but never beside a save (the lifecycle's disk lock). */
    readonly shared: <T>(operation: () => Promise<T>) => Promise<T>,
  ) {}

  /** A workspace-relative path checked as the files API checks it (INVALID_PATH otherwise). */
  checkPath(path: string): string {
    const result = checkWorkspacePath(path);
    if (!result.ok) throw new AppError(ErrorCode.INVALID_PATH, `"${path.slice(0, 200)}": ${result.reason}`);
    return result.path;
  }

  /** Runs a file operation, turning Linux errors into AppErrors about `path`. */
  async attempt<T>(operation: () => Promise<T>, path: string): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw fileError(error, path);
    }
  }

  /** The text of a file and the stat of exactly what was read; refuses binary and over-large files. */
  async readText(path: string): Promise<{ text: string; stat: SandboxFileStat }> {
    const { response, stat } = await this.attempt(() => this.files.readFileWithStat(containerPath(path)), path);
    if (stat.size > BigInt(READ_MAX_BYTES)) {
      await response.body?.cancel();
      throw new AppError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        `"${path}" is ${stat.size} bytes, over the ${READ_MAX_BYTES} bytes a tool reads: use search, or run_command with head, tail or sed.`,
      );
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.subarray(0, 8192).includes(0)) {
      throw new AppError(ErrorCode.BAD_REQUEST, `"${path}" is a binary file (${bytes.byteLength} bytes): not shown.`);
    }
    return { text: new TextDecoder().decode(bytes), stat };
  }

  /** Writes `content` atomically (a file beside it, renamed into place); `expectedEtag` "" skips the check. */
  async save(path: string, content: string, expectedEtag: string): Promise<SandboxFileStat> {
    const temp = temporaryPath(path, "save");
    try {
      return await this.attempt(
        () => this.files.saveAtomically(containerPath(temp), containerPath(path), expectedEtag, content),
        path,
      );
    } catch (error) {
      await this.files.remove(containerPath(temp), { force: true }).catch(() => {});
      throw error;
    }
  }
}

export async function readFile(
  files: WorkspaceFiles,
  rawPath: string,
  startLine?: number,
  endLine?: number,
): Promise<ToolOutput> {
  const path = files.checkPath(rawPath);
  const { text } = await files.readText(path);
  if (text === "") return ["", `[${path} is empty]`];
  const lines = text.split("\n");
  // A final newline ends the last line rather than starting an empty one.
  if (lines.at(-1) === "") lines.pop();
  const total = lines.length;
  const first = startLine ?? 1;
  const last = Math.min(endLine ?? total, total);
  if (first > total)
    throw new AppError(ErrorCode.BAD_REQUEST, `${path} has ${total} lines: startLine ${first} is past its end.`);
  if (last < first) throw new AppError(ErrorCode.BAD_REQUEST, "endLine is before startLine.");
  let shown = "";
  let through = first - 1;
  for (let line = first; line <= last; line++) {
    const next = `${lines[line - 1]}\n`;
    if (shown.length + next.length > READ_MAX_CHARS && through >= first) break;
    shown += next;
    through = line;
  }
  // The whole file: its exact text (whether it ends with a newline is the file's, not ours).
  if (first === 1 && through === total) return text;
  const more = through < last ? ` (cut at ${READ_MAX_CHARS} characters; continue with startLine=${through + 1})` : "";
  return [shown, `[${path}: lines ${first}-${through} of ${total}${more}]`];
}

export async function listDirectory(files: WorkspaceFiles, rawPath: string): Promise<ToolOutput> {
  const path = files.checkPath(rawPath);
  const { entries } = await files.attempt(() => files.files.listDirectory(containerPath(path)), path);
  if (entries.length === 0) return `${path} is empty.`;
  const sorted = [...entries].sort(
    (a, b) => Number(b.type === "directory") - Number(a.type === "directory") || a.name.localeCompare(b.name),
  );
  const lines = sorted
    .slice(0, LIST_MAX_ENTRIES)
    .map((e) =>
      e.type === "directory"
        ? `${e.name}/`
        : e.type === "symlink"
          ? `${e.name} -> (link)`
          : `${e.name}  ${e.size} bytes`,
    );
  if (sorted.length <= LIST_MAX_ENTRIES) return lines.join("\n");
  return [lines.join("\n"), `[${sorted.length} entries: the first ${LIST_MAX_ENTRIES} shown]`];
}

export async function writeFile(
  files: WorkspaceFiles,
  rawPath: string,
  content: string,
  createParents: boolean,
): Promise<ToolOutput> {
  const path = files.checkPath(rawPath);
  if (path === ".") throw new AppError(ErrorCode.INVALID_PATH, "path names /workspace itself: name a file.");
  const stat = await files.shared(async () => {
    if (createParents) {
      const parent = parentPath(path);
      await files.attempt(() => files.files.mkdir(containerPath(parent), { recursive: true }), parent);
    }
    return files.save(path, content, "");
  });
  return `Wrote ${stat.size} bytes to ${path}.`;
}

export async function editFile(
  files: WorkspaceFiles,
  rawPath: string,
  oldText: string,
  newText: string,
  replaceAll: boolean,
): Promise<ToolOutput> {
  const path = files.checkPath(rawPath);
  return files.shared(async () => {
    const { text, stat } = await files.readText(path);
    const count = text.split(oldText).length - 1;
    if (count === 0) {
      throw new AppError(
        ErrorCode.EDIT_NO_MATCH,
        `oldText does not occur in ${path} (it must match exactly, whitespace included): nothing was changed. Read the file again.`,
      );
    }
    if (count > 1 && !replaceAll) {
      throw new AppError(
        ErrorCode.EDIT_AMBIGUOUS,
        `oldText occurs ${count} times in ${path}: include more surrounding text so it occurs once, or set replaceAll. Nothing was changed.`,
      );
    }
    const updated = replaceAll ? text.split(oldText).join(newText) : text.replace(oldText, () => newText);
    // Saved only if the file is still what was read: an edit in between is not lost.
    await files.save(path, updated, stat.etag);
    return `Replaced ${count} occurrence${count === 1 ? "" : "s"} in ${path}.`;
  });
}
