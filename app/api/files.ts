import { ErrorCode } from "../../protocol/errors";
import type { DirectoryListing, FileInfo, MoveRequest } from "../../protocol/files";
import { UPLOAD_CHUNK_BYTES } from "../../protocol/files";
import {
  ApiRequestError,
  apiFetch,
  apiJson,
  ClientErrorCode,
  errorFromBody,
  jsonBody,
  readAwake,
  workspacePath,
} from "./http";

/** The browser side of `/api/workspaces/{id}/files...` (worker/files/file-routes.ts). */
export class FilesApi {
  constructor(readonly workspaceId: string) {}

  url(suffix: string, query: Record<string, string> = {}): string {
    const search = new URLSearchParams(query).toString();
    return workspacePath(this.workspaceId, `/files${suffix}${search ? `?${search}` : ""}`);
  }

  /** The server-sent events stream of changes (read by app/files/file-events.ts). */
  watchUrl(): string {
    return this.url("/watch");
  }

  /** `wake: false` for re-reads the page makes by itself: they must not wake a sleeping workspace. */
  list(path: string, { wake = true } = {}): Promise<DirectoryListing> {
    const list = () => apiJson<DirectoryListing>(this.url("", wake ? { path } : { path, wake: "0" }));
    return wake ? this.awake(list) : list();
  }

  stat(path: string): Promise<FileInfo> {
    return this.awake(() => apiJson(this.url("/stat", { path })));
  }

  /** The file's bytes and its etag. */
  read(path: string): Promise<{ bytes: Uint8Array; etag: string }> {
    return this.awake(async () => {
      const response = await apiFetch(this.url("/content", { path }));
      return { bytes: new Uint8Array(await response.arrayBuffer()), etag: response.headers.get("ETag") ?? "" };
    });
  }

  /**
   * Reads a file unless it still is the version `etag` names (`If-None-Match`,
   * answered 304 without the bytes): the check an open tab makes after each
   * change event, most often its own save.
   */
  readIfChanged(path: string, etag: string): Promise<{ bytes: Uint8Array; etag: string } | undefined> {
    return this.awake(async () => {
      const response = await apiFetch(this.url("/content", { path }), { headers: { "If-None-Match": etag } });
      if (response.status === 304) return undefined;
      return { bytes: new Uint8Array(await response.arrayBuffer()), etag: response.headers.get("ETag") ?? "" };
    });
  }

  /** A read the user asked for wakes a sleeping workspace first (see readAwake). */
  private awake<T>(read: () => Promise<T>): Promise<T> {
    return readAwake(this.workspaceId, read);
  }

  /** Saves; `etag` makes it conditional (412 FILE_CHANGED when the file changed), null creates only. */
  save(path: string, content: string | Blob, etag: string | null | undefined): Promise<FileInfo> {
    const headers: Record<string, string> = {};
    if (etag) headers["If-Match"] = etag;
    if (etag === null) headers["If-None-Match"] = "*";
    return apiJson(this.url("/content", { path }), { method: "PUT", headers, body: content });
  }

  mkdir(path: string): Promise<FileInfo> {
    return apiJson(this.url("/mkdir", { path }), { method: "POST" });
  }

  move(from: string, to: string): Promise<FileInfo> {
    return apiJson(this.url("/move"), jsonBody("POST", { from, to } satisfies MoveRequest));
  }

  async remove(path: string, recursive: boolean): Promise<void> {
    await apiFetch(this.url("", { path, ...(recursive ? { recursive: "1" } : {}) }), { method: "DELETE" });
  }

  downloadUrl(path: string): string {
    return this.url("/download", { path });
  }

  /**
   * Uploads one file in chunks (each a PUT streamed into the container), with
   * progress in bytes. XHR because fetch has no upload progress.
   */
  async upload(path: string, file: Blob, onProgress: (sent: number) => void, signal?: AbortSignal): Promise<void> {
    const token = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join(
      "",
    );
    let offset = 0;
    let restarts = 0;
    try {
      do {
        const end = Math.min(file.size, offset + UPLOAD_CHUNK_BYTES);
        const final = end >= file.size;
        const query: Record<string, string> = { path, upload: token, offset: String(offset) };
        if (final) query.final = "1";
        const base = offset;
        try {
          await this.sendChunk(
            () =>
              xhrPut(this.url("/upload", query), file.slice(base, end), (loaded) => onProgress(base + loaded), signal),
            final ? { path, size: file.size } : undefined,
            signal,
          );
        } catch (error) {
          // What arrived went with its container (one that stopped unexpectedly is replaced from its last
          // save, and the part of an upload is not saved): the file is unchanged, so the upload starts over.
          if (base > 0 && restarts < MAX_RESTARTS && isUploadLost(error)) {
            restarts++;
            offset = 0;
            onProgress(0);
            continue;
          }
          throw error;
        }
        offset = end;
        onProgress(offset);
      } while (offset < file.size);
    } catch (error) {
      // Whatever part arrived is removed (best effort; nothing there is fine too).
      void apiFetch(this.url("/upload", { path, upload: token }), { method: "DELETE" }).catch(() => {});
      throw error;
    }
  }

  /**
   * Sends one chunk, again after a network failure (a chunk is written at its
   * offset, so sending it twice is harmless), waiting longer each time. When
   * the connection dropped after the last chunk was committed, the retry finds
   * no upload in progress: the file being there at its full size means done.
   */
  private async sendChunk(
    send: () => Promise<void>,
    last: { path: string; size: number } | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        const retried = attempt > 1;
        if (last && retried && error instanceof ApiRequestError && error.code === ErrorCode.UPLOAD_NOT_FOUND) {
          const landed = await this.stat(last.path).catch(() => undefined);
          if (landed?.size === last.size) return;
        }
        const network = error instanceof ApiRequestError && error.code === ClientErrorCode.NETWORK;
        if (!network || attempt > CHUNK_RETRIES || signal?.aborted) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** (attempt - 1)));
      }
    }
  }
}

/** Times an upload starts over after what it sent was lost with its container. */
const MAX_RESTARTS = 2;

function isUploadLost(error: unknown): boolean {
  return error instanceof ApiRequestError && error.code === ErrorCode.UPLOAD_NOT_FOUND;
}

/** Network failures one chunk survives: waits of 1, 2, 4 and 8 s, about 15 s in all. */
const CHUNK_RETRIES = 4;

function xhrPut(url: string, body: Blob, onProgress: (loaded: number) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      reject(errorFromBody(xhr.status, body, `The upload failed with ${xhr.status}.`));
    };
    xhr.onerror = () => reject(new ApiRequestError(0, ClientErrorCode.NETWORK, "The upload was interrupted."));
    xhr.onabort = () => reject(new DOMException("Upload cancelled", "AbortError"));
    signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}
