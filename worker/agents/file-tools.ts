/**
 * The file tools: the same `Files` layer and path checks as the files API
 * (worker/files/), never a shell, so a path is confined to /workspace the
 * same way (`..` and absolute paths refused, symbolic links leading out
 * refused in the container, in the process that opens the file).
 */
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { READ_MAX_BYTES, type WorkspaceFiles } from "../files/workspace-files";
import { containerPath, parentPath } from "../files/workspace-path";
import type { ToolOutput } from "./tool-output";

export { READ_MAX_BYTES };
/** A read answers at most this many characters (the note says which lines were shown). */
export const READ_MAX_CHARS = 200_000;
const LIST_MAX_ENTRIES = 2_000;

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
