/**
 * The multipart uploads of backups under way, kept in the Durable Object's
 * storage. A failed backup aborts its own upload (r2-parts.ts), but a Worker
 * that restarts mid-backup (a deploy, a crash) never runs that abort: the
 * upload would stay open in R2, its parts stored and billed, until the
 * bucket's lifecycle rule (7 days by default) takes it. The next backup, or
 * deleting the workspace, aborts what a restart left.
 */

interface OpenUpload {
  key: string;
  uploadId: string;
}

export interface OpenUploadsStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
}

const UPLOADS_KEY = "backups:uploads";

export class OpenUploads {
  /** Uploads of this object's lifetime: never "left by a restart". */
  private readonly live = new Set<string>();

  constructor(
    private readonly storage: OpenUploadsStorage,
    private readonly tag: string,
  ) {}

  /** Records `upload` before its first part goes out. */
  async begun(upload: Pick<R2MultipartUpload, "key" | "uploadId">): Promise<void> {
    this.live.add(upload.uploadId);
    const open = await this.read();
    await this.storage.put<OpenUpload[]>(UPLOADS_KEY, [...open, { key: upload.key, uploadId: upload.uploadId }]);
  }

  /** The upload completed or was aborted by its own backup. */
  async ended(uploadId: string): Promise<void> {
    this.live.delete(uploadId);
    const open = await this.read();
    const rest = open.filter((upload) => upload.uploadId !== uploadId);
    if (rest.length === open.length) return;
    await (rest.length > 0 ? this.storage.put(UPLOADS_KEY, rest) : this.storage.delete(UPLOADS_KEY));
  }

  /**
   * Aborts every recorded upload this object did not begin: those a restart
   * cut. One R2 refuses stays recorded for the next call.
   */
  async abortLeft(bucket: R2Bucket): Promise<number> {
    const open = await this.read();
    const left = open.filter((upload) => !this.live.has(upload.uploadId));
    if (left.length === 0) return 0;
    const aborted = new Set<string>();
    for (const upload of left) {
      try {
        await bucket.resumeMultipartUpload(upload.key, upload.uploadId).abort();
        aborted.add(upload.uploadId);
        console.log(`${this.tag}: aborted the upload of ${upload.key} that a restart left open`);
      } catch (error) {
        console.error(`${this.tag}: the upload of ${upload.key} left open stays for now: ${String(error)}`);
      }
    }
    // Read again: a backup may have begun while the aborts ran.
    const now = (await this.read()).filter((upload) => !aborted.has(upload.uploadId));
    await (now.length > 0 ? this.storage.put(UPLOADS_KEY, now) : this.storage.delete(UPLOADS_KEY));
    return aborted.size;
  }

  private async read(): Promise<OpenUpload[]> {
    return (await this.storage.get<OpenUpload[]>(UPLOADS_KEY)) ?? [];
  }
}
