/**
 * A workspace's files as the IDE's own writers use them: the file routes,
 * co-editing and the agents' tools all save through {@link saveFile}, so a
 * save is written one way (a file beside it, renamed into place, the
 * journal told, the leftover removed on failure, Linux errors mapped).
 */
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { fileError } from "./file-errors";
import type { FileContent, Files, SandboxFileStat } from "./sandbox-files";
import { temporaryPath } from "./temporary-path";
import { checkWorkspacePath, containerPath } from "./workspace-path";

/** A file larger than this is not read whole by an agent's tool (the answer says how to read it). */
export const READ_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Writes `content` to the workspace file `path` atomically: to a temporary
 * file beside it, then renamed into place if the file is still `expectedEtag`
 * ("" skips the check, "-" wants no file there). A failure leaves the file as
 * it was and removes the temporary file; it throws an AppError about `path`.
 * `length`: the content's size when known (a request's Content-Length), for the save journal.
 */
export async function saveFile(
  files: Files,
  path: string,
  content: FileContent,
  expectedEtag: string,
  length?: number,
): Promise<SandboxFileStat> {
  const temp = containerPath(temporaryPath(path, "save"));
  try {
    return await files.saveAtomically(
      temp,
      containerPath(path),
      expectedEtag,
      content,
      length === undefined ? {} : { length },
    );
  } catch (error) {
    await files.remove(temp, { force: true }).catch(() => {});
    throw fileError(error, path);
  }
}

/** `Files` with checked paths, Linux errors as AppErrors, and changes never beside a checkpoint's save. */
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

  /** Writes `content` atomically (see {@link saveFile}); `expectedEtag` "" skips the check. */
  save(path: string, content: string, expectedEtag: string): Promise<SandboxFileStat> {
    return saveFile(this.files, path, content, expectedEtag);
  }
}
