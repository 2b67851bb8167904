/**
 * Files in memory with etags, answering as the files API does: the editor
 * model's unit tests' fake (never used by the app). `log` gets "read P" and
 * "files.save P" in order; `reads` the paths whose bytes were sent.
 */
import { ErrorCode } from "../../protocol/errors";
import type { FileInfo } from "../../protocol/files";
import type { FilesApi } from "../api/files";
import { ApiRequestError } from "../api/http";

export function memoryFiles(initial: Record<string, string | Uint8Array>, log: string[] = []) {
  const disk = new Map<string, Uint8Array>(
    Object.entries(initial).map(([path, content]) => [
      path,
      typeof content === "string" ? new TextEncoder().encode(content) : content,
    ]),
  );
  let version = 0;
  const reads: string[] = [];
  const etags = new Map([...disk.keys()].map((path) => [path, `v${version++}`]));
  const info = (path: string): FileInfo => ({
    path,
    type: "file",
    size: disk.get(path)?.byteLength ?? 0,
    modifiedAt: 0,
    etag: etags.get(path) ?? "",
  });
  const missing = (path: string) => new ApiRequestError(404, ErrorCode.FILE_NOT_FOUND, `${path} does not exist.`);
  /** A change made outside the editor (the terminal). */
  const write = (path: string, text: string) => {
    disk.set(path, new TextEncoder().encode(text));
    etags.set(path, `v${version++}`);
  };
  const files = {
    async stat(path: string) {
      if (!disk.has(path)) throw missing(path);
      return info(path);
    },
    async read(path: string) {
      log.push(`read ${path}`);
      if (!disk.has(path)) throw missing(path);
      reads.push(path);
      return { bytes: disk.get(path) as Uint8Array, etag: etags.get(path) ?? "" };
    },
    async readIfChanged(path: string, etag: string) {
      if (disk.has(path) && etags.get(path) === etag) return undefined;
      return files.read(path);
    },
    async save(path: string, content: string, etag?: string | null) {
      log.push(`files.save ${path}`);
      if (etag && etags.get(path) !== etag) throw new ApiRequestError(412, ErrorCode.FILE_CHANGED, "changed");
      write(path, content);
      return info(path);
    },
  };
  const text = (path: string) => {
    const bytes = disk.get(path);
    return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
  };
  return { files: files as unknown as FilesApi, write, text, info, reads, remove: (path: string) => disk.delete(path) };
}
