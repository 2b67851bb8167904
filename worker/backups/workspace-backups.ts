/**
 * A workspace's backups: records in the Durable Object's storage, objects in
 * R2 under the workspace's own prefix. The archive travels from `tar | zstd`
 * in the container to this object, which writes it to R2 (and back for a
 * restore): over HTTP to an intercepted hostname (archive-transfers.ts),
 * else over the exec's stdout and stdin (a container whose intercept could
 * not be set up). No R2 credential enters the container, and it works in
 * every network mode. Callers hold the disk (Lifecycle.exclusive) around
 * create and restore.
 */
import type { BackupHealth, BackupReason, BackupRecord, RestoreResult } from "../../protocol/backups";
import { ErrorCode } from "../../protocol/errors";
import { AppError, describe } from "../errors";
import { deleteUnderPrefix, firstBytes, hashing, uploadInParts } from "../r2-parts";
import { ArchiveTransfers } from "../sandbox/archive-transfers";
import type { Sandbox } from "../sandbox/sandbox";
import { LATE, within } from "../within";
import {
  BACKUP_DIRS,
  discardStaging,
  extractInPlace,
  extractToStaging,
  type ImageSplit,
  startArchive,
  swapStaged,
} from "./directory-archive";
import { OpenUploads } from "./open-uploads";
import { expiredBackups } from "./retention";

const RECORDS_KEY = "backups:records";
const HEALTH_KEY = "backups:health";
/** Each listed backup's {@link ImageSplit}, by id: what a wake on the same image may skip. */
const SPLITS_KEY = "backups:splits";
/** A split whose list of removed entries is longer than this is not kept: such a wake unpacks everything. */
const MAX_SPLIT_JSON = 32 * 1024;
/** A daily backup is due this long after the latest one. */
export const DAILY_MS = 24 * 60 * 60 * 1000;
/** After a failed attempt, the next check tries again this much later. */
export const RETRY_MS = 10 * 60 * 1000;
/** How long to wait for the hash of a restore's stream once the container's side ended. */
const HASH_WAIT_MS = 10_000;

interface StoredHealth {
  lastAt: number | null;
  lastError?: string;
  lastErrorAt?: number;
}

export interface BackupsStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
}

export interface BackupsDeps {
  /** The R2 bucket; undefined when the deployment has none (every operation then says so). */
  bucket: () => R2Bucket | undefined;
  storage: BackupsStorage;
  sandbox: Sandbox;
  /**
   * Commands through the container's resident agent (the sandbox's quick;
   * by exec when it cannot start): the scripts of HTTP transfers, the swap
   * and the clean-up need no stdio of ours, and each spares an exec's round
   * trip (bench/README.md).
   */
  quick?: Pick<Sandbox, "run">;
  /** Where this workspace's objects live: `workspaces/{durable object id}/`. */
  prefix: string;
  /** The image the running container started from. */
  image: () => Promise<string>;
  tag: string;
  /**
   * Routes the container's requests to the archive hostname here (the
   * sandbox's interceptArchive); absent or failing: archives go by exec.
   */
  archiveRoute?: () => Promise<void>;
}

/** The archive of a backup as this object reads it. */
interface Archive {
  stream: ReadableStream<Uint8Array>;
  /** Awaited once the stream ended: rejects when tar, zstd or the transfer failed. */
  finished: () => Promise<void>;
  /** The upload failed: the container's side is told, so it ends. */
  abandon: () => void;
  /** Once finished: what a wake on the same image may skip (HTTP transfers on an image with a list only). */
  split: () => Promise<ImageSplit | undefined>;
}

export class WorkspaceBackups {
  /** The HTTP transfers in progress (the Workspace's archiveReceive and archiveSend hand them over). */
  readonly transfers = new ArchiveTransfers();
  /** Splits of backups taken but not yet listed ({@link keep} stores them with the record). */
  private readonly takenSplits = new Map<string, ImageSplit>();
  /** Each backup's multipart upload while it runs: one a restart cut is aborted by the next backup. */
  private readonly openUploads: OpenUploads;

  constructor(private readonly deps: BackupsDeps) {
    this.openUploads = new OpenUploads(deps.storage, deps.tag);
  }

  /** Newest first. */
  async list(): Promise<BackupRecord[]> {
    const records = (await this.deps.storage.get<BackupRecord[]>(RECORDS_KEY)) ?? [];
    return [...records].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  }

  async latest(): Promise<BackupRecord | undefined> {
    return (await this.list())[0];
  }

  async health(): Promise<BackupHealth> {
    const health = await this.deps.storage.get<StoredHealth>(HEALTH_KEY);
    const lastAt = health?.lastAt ? new Date(health.lastAt).toISOString() : null;
    return health?.lastError ? { lastAt, lastError: health.lastError } : { lastAt };
  }

  /**
   * Whether the alarm should take one now: none for a day (counting from
   * `since`, the container's start, when there is none yet), or the last
   * attempt failed a while ago.
   */
  async due(now: number, since: number): Promise<boolean> {
    const health = await this.deps.storage.get<StoredHealth>(HEALTH_KEY);
    if (health?.lastError) return now - (health.lastErrorAt ?? 0) >= RETRY_MS;
    return now - (health?.lastAt ?? since) >= DAILY_MS;
  }

  /** A record of this workspace, or BACKUP_NOT_FOUND (ids of other workspaces name nothing here). */
  async get(id: string): Promise<BackupRecord> {
    const record = (await this.list()).find((candidate) => candidate.id === id);
    if (!record) throw new AppError(ErrorCode.BACKUP_NOT_FOUND, "No backup with this id in this workspace.");
    return record;
  }

  /**
   * Backs up the running container's files now. Records the outcome for the
   * status either way; throws BACKUP_UNAVAILABLE when R2 or tar failed.
   */
  async create(reason: BackupReason, protect: readonly string[] = []): Promise<BackupRecord> {
    const taken = await this.take(reason);
    return this.keep(taken, protect);
  }

  /**
   * The object of a backup, in R2 but not yet listed (see {@link keep}). A
   * failure is recorded for the status and thrown as BACKUP_UNAVAILABLE.
   */
  private async take(reason: BackupReason): Promise<BackupRecord> {
    const started = Date.now();
    const generation = this.deps.sandbox.generation;
    try {
      const bucket = this.bucket();
      await this.openUploads.abortLeft(bucket);
      const id = newBackupId();
      const dirs = [...BACKUP_DIRS];
      const image = await this.deps.image();
      const archive = await this.archive(dirs);
      // When tar | zstd ended, apart from the R2 work after it: where a backup's time goes, in the log.
      let ended = started;
      let uploadId: string | undefined;
      const uploaded = await uploadInParts(
        bucket,
        this.key(id),
        archive.stream,
        async () => {
          await archive.finished();
          ended = Date.now();
        },
        {
          begun: (upload) => {
            uploadId = upload.uploadId;
            return this.openUploads.begun(upload);
          },
        },
      )
        .catch((error: unknown) => {
          archive.abandon();
          throw error;
        })
        .finally(async () => {
          if (uploadId) await this.openUploads.ended(uploadId);
        });
      const split = await archive.split();
      if (split && JSON.stringify(split).length <= MAX_SPLIT_JSON) this.takenSplits.set(id, split);
      console.log(
        `${this.deps.tag}: backup ${id} (${reason}) ${uploaded.size} bytes in ${Date.now() - started} ms (the archive ended at ${ended - started} ms${split ? `; ${split.offset} bytes differ from the image` : ""})`,
      );
      return { id, createdAt: new Date(started).toISOString(), ...uploaded, dirs, image, reason, pinned: false };
    } catch (error) {
      throw await this.failed(reason, error, generation);
    }
  }

  /**
   * `tar | zstd` of `dirs`, PUT by the container's curl to a one-time URL
   * of this object; by the exec's stdout when the route cannot be set up or
   * the request never came (curl failed: a container whose catch-all
   * intercept was registered before the archive's hostname).
   */
  private async archive(dirs: readonly string[]): Promise<Archive> {
    const sandbox = this.deps.sandbox;
    if (await this.routed()) {
      const transfer = this.transfers.expectUpload();
      const started = await startArchive(sandbox, dirs, { url: transfer.url }, this.deps.quick);
      const ended = started.exitCode.then(
        () => undefined,
        () => undefined,
      );
      const body = await Promise.race([transfer.body, ended]);
      if (body) {
        return {
          stream: body,
          finished: async () => {
            // The body was read to its end: curl gets its answer, then the script its statuses.
            transfer.answer({ ok: true });
            const code = await started.exitCode.finally(() => transfer.close());
            if (code !== 0) throw new Error(await started.failure());
          },
          abandon: () => {
            transfer.answer({ ok: false, message: "the backup failed" });
            transfer.close();
          },
          split: started.split,
        };
      }
      transfer.close();
      console.warn(`${this.deps.tag}: the archive did not come over HTTP (${await started.failure()}); by exec`);
    }
    const started = await startArchive(sandbox, dirs, "exec");
    return {
      stream: started.stdout as ReadableStream<Uint8Array>,
      finished: async () => {
        if ((await started.exitCode) !== 0) throw new Error(await started.failure());
      },
      abandon: () => {},
      split: async () => undefined,
    };
  }

  /** Unpacks `archive` into the staging folder: GET by the container's curl, or by the exec's stdin as {@link archive} falls back. */
  private async extract(archive: ReadableStream<Uint8Array>): Promise<void> {
    const sandbox = this.deps.sandbox;
    if (await this.routed()) {
      const transfer = this.transfers.offerDownload(archive);
      try {
        await extractToStaging(sandbox, { url: transfer.url }, this.deps.quick);
        return;
      } catch (error) {
        // Taken: the stream is spent, and the error is the restore's.
        if (transfer.wasTaken) throw error;
        console.warn(`${this.deps.tag}: the archive did not go over HTTP (${describe(error)}); by exec`);
      } finally {
        transfer.close();
      }
    }
    await extractToStaging(sandbox, { stdin: archive });
  }

  /** Commands that need no stdio of ours: through the resident agent when there is one. */
  private shortCommands(): Pick<Sandbox, "run"> {
    return this.deps.quick ?? this.deps.sandbox;
  }

  /** Whether the container's requests to the archive hostname reach this object. */
  private async routed(): Promise<boolean> {
    const route = this.deps.archiveRoute;
    if (!route) return false;
    try {
      await route();
      return true;
    } catch (error) {
      console.warn(`${this.deps.tag}: no HTTP route for archives (${describe(error)}); by exec`);
      return false;
    }
  }

  /** Lists a taken backup, records it as the latest, and lets go of those the retention rule drops. */
  private async keep(record: BackupRecord, protect: readonly string[]): Promise<BackupRecord> {
    const split = this.takenSplits.get(record.id);
    this.takenSplits.delete(record.id);
    if (split) await this.deps.storage.put(SPLITS_KEY, { ...(await this.splits()), [record.id]: split });
    await this.save([record, ...(await this.list())]);
    await this.deps.storage.put<StoredHealth>(HEALTH_KEY, { lastAt: Date.parse(record.createdAt) });
    await this.prune(new Set([record.id, ...protect]));
    return record;
  }

  /** Records a failed backup for the status; the error to throw. */
  private async failed(reason: BackupReason, error: unknown, generation: number): Promise<AppError> {
    const sandbox = this.deps.sandbox;
    // A container that stopped mid-archive breaks the stream with an RPC message that means nothing to a person.
    const stopped = !sandbox.running || sandbox.generation !== generation;
    const message = stopped
      ? `the container stopped while its files were being archived (${describe(error)})`
      : describe(error).replace(/\.$/, "");
    const previous = await this.deps.storage.get<StoredHealth>(HEALTH_KEY);
    await this.deps.storage.put<StoredHealth>(HEALTH_KEY, {
      lastAt: previous?.lastAt ?? null,
      lastError: message,
      lastErrorAt: Date.now(),
    });
    console.error(`${this.deps.tag}: backup (${reason}) failed: ${message}`);
    if (error instanceof AppError) return error;
    return new AppError(
      ErrorCode.BACKUP_UNAVAILABLE,
      `The backup failed: ${message}. Nothing was stored; back up again${stopped ? " once the workspace runs" : ""} (automatic backups try again on their own).`,
    );
  }

  /** {@link create} for the lifecycle's saves: a failure is recorded and logged, never thrown. */
  async attempt(reason: BackupReason): Promise<BackupRecord | undefined> {
    return this.create(reason).catch(() => undefined);
  }

  /**
   * Replaces the files with `record`'s: its object is streamed into a staging
   * folder while its size and SHA-256 are checked; only when both match are
   * the folders swapped in. On any failure nothing changed (BACKUP_INTEGRITY,
   * NO_SPACE, BACKUP_UNAVAILABLE).
   *
   * `fresh`: the container was just started from the image and nothing has
   * touched the folders yet. When the backup was taken on an image with the
   * same list, and the folders are still exactly that image's, only what
   * differs from the image is unpacked, in place ({@link quickRestore}); a
   * failure then leaves the container half restored (a wake throws it away,
   * or restores the next backup fully over it).
   */
  async restoreInto(record: BackupRecord, fresh = false): Promise<void> {
    const started = Date.now();
    const split = fresh ? (await this.splits())[record.id] : undefined;
    const quick = this.deps.quick;
    if (split && quick && (await this.routed())) {
      if (await this.quickRestore(record, split, quick)) {
        console.log(
          `${this.deps.tag}: backup ${record.id} restored over the image in ${Date.now() - started} ms (${split.offset} of ${record.size} bytes unpacked)`,
        );
        return;
      }
      console.log(`${this.deps.tag}: backup ${record.id} was taken on another image's files; unpacking all of it`);
    }
    await this.stage(record);
    const staged = Date.now();
    await swapStaged(this.shortCommands(), record.dirs);
    // Where a wake from a backup spends its time, in the log.
    console.log(
      `${this.deps.tag}: backup ${record.id} staged in ${staged - started} ms, swapped in ${Date.now() - staged} ms`,
    );
  }

  /**
   * The first `split.offset` bytes of the object go to the container, which
   * removes the image's entries the backup lacks and unpacks them in place;
   * the whole object is still read and hashed, and a size or SHA-256 that
   * does not match throws BACKUP_INTEGRITY after all. False, with nothing
   * changed, when the container's folders are not the image's as listed.
   */
  private async quickRestore(record: BackupRecord, split: ImageSplit, quick: Pick<Sandbox, "run">): Promise<boolean> {
    const body = await this.openObject(record);
    const hashed = hashing(body);
    const { head, rest } = firstBytes(hashed.stream, split.offset);
    // The rest is read and hashed (~80 ms for the template's 18 MB) while the container unpacks the head.
    const drained = rest.drain();
    drained.catch(() => {}); // awaited below once unpacked; otherwise it ends with the cancel
    const transfer = this.transfers.offerDownload(head);
    let unpacked: boolean;
    try {
      unpacked = await extractInPlace(quick, transfer.url, split);
    } catch (error) {
      await rest.cancel().catch(() => {});
      throw error;
    } finally {
      transfer.close();
    }
    if (!unpacked) {
      await rest.cancel().catch(() => {});
      return false;
    }
    await drained;
    await this.verified(record, hashed.result);
    return true;
  }

  /**
   * A user's restore: the backup is unpacked and verified while the current
   * files are backed up (the undo, so a restore can be undone); only when both
   * succeeded is the undo listed and are the folders swapped. The two run at
   * once (the archive goes to a staging folder beside /workspace and /root,
   * which the undo's tar does not read). A damaged backup leaves no undo
   * backup behind (its object is deleted unlisted) and changes nothing.
   */
  async restore(id: string): Promise<RestoreResult> {
    const record = await this.get(id);
    const started = Date.now();
    const [staged, taken] = await Promise.allSettled([
      this.stage(record).finally(() =>
        console.log(`${this.deps.tag}: restore of ${id} staged in ${Date.now() - started} ms`),
      ),
      this.take("before-restore"),
    ]);
    if (staged.status === "rejected") {
      if (taken.status === "fulfilled") {
        this.takenSplits.delete(taken.value.id);
        await this.deleteObject(taken.value.id);
      }
      throw staged.reason;
    }
    if (taken.status === "rejected") {
      await discardStaging(this.shortCommands()).catch(() => {});
      throw taken.reason;
    }
    // The one to restore must outlive the retention run of the undo backup.
    const undo = await this.keep(taken.value, [record.id]);
    await swapStaged(this.shortCommands(), record.dirs);
    return { restored: record, undo };
  }

  /** An object no record lists (an undo backup whose restore was refused); kept if R2 refuses, as prune does. */
  private async deleteObject(id: string): Promise<void> {
    await this.bucket()
      .delete(this.key(id))
      .catch((error: unknown) => console.error(`${this.deps.tag}: unlisted backup ${id} stays: ${describe(error)}`));
  }

  /** The object of `record` from R2, its size checked against the record's. */
  private async openObject(record: BackupRecord): Promise<ReadableStream<Uint8Array>> {
    let object: R2ObjectBody | null;
    try {
      object = await this.bucket().get(this.key(record.id));
    } catch (error) {
      throw new AppError(
        ErrorCode.BACKUP_UNAVAILABLE,
        `The backup could not be read from R2 (${describe(error)}). Nothing was changed; try again once R2 answers.`,
      );
    }
    if (!object) {
      throw new AppError(ErrorCode.BACKUP_INTEGRITY, "The backup's object is missing from R2. Nothing was changed.");
    }
    if (object.size !== record.size) {
      await object.body.cancel().catch(() => {});
      throw integrity(`it holds ${object.size} bytes, ${record.size} were stored`);
    }
    return object.body;
  }

  /** Throws BACKUP_INTEGRITY unless the stream hashed as `result` had the record's size and SHA-256. */
  private async verified(record: BackupRecord, result: () => Promise<{ size: number; sha256: string }>): Promise<void> {
    const got = await within(
      result().catch(() => undefined),
      HASH_WAIT_MS,
    );
    if (got === LATE || !got) throw integrity("the archive did not end where it should");
    if (got.size !== record.size || got.sha256 !== record.sha256) {
      throw integrity(`its SHA-256 is ${got.sha256.slice(0, 12)}…, ${record.sha256.slice(0, 12)}… was stored`);
    }
  }

  /** Unpacks `record` into the staging folder and checks its size and SHA-256; on failure the folder is gone. */
  private async stage(record: BackupRecord): Promise<void> {
    const hashed = hashing(await this.openObject(record));
    try {
      await this.extract(hashed.stream);
      await this.verified(record, hashed.result);
    } catch (error) {
      await discardStaging(this.shortCommands()).catch(() => {});
      throw error;
    }
  }

  /** The object as stored (`tar` + `zstd`), for a download; no container needed. */
  async object(id: string): Promise<{ record: BackupRecord; body: ReadableStream<Uint8Array> }> {
    const record = await this.get(id);
    const object = await this.bucket().get(this.key(id));
    if (!object) throw integrity("its object is missing from R2");
    return { record, body: object.body };
  }

  async setPinned(id: string, pinned: boolean): Promise<BackupRecord> {
    const records = await this.list();
    const record = records.find((candidate) => candidate.id === id);
    if (!record) throw new AppError(ErrorCode.BACKUP_NOT_FOUND, "No backup with this id in this workspace.");
    record.pinned = pinned;
    await this.save(records);
    if (!pinned) await this.prune(new Set());
    return record;
  }

  async delete(id: string): Promise<void> {
    await this.get(id);
    await this.bucket().delete(this.key(id));
    await this.save((await this.list()).filter((record) => record.id !== id));
  }

  /** Deleting the workspace: every object under its prefix, listed from R2 itself, and the records. */
  async deleteAll(): Promise<void> {
    const bucket = this.deps.bucket();
    if (bucket) {
      await this.openUploads.abortLeft(bucket);
      await deleteUnderPrefix(bucket, this.deps.prefix);
    }
    await this.deps.storage.delete(RECORDS_KEY);
    await this.deps.storage.delete(SPLITS_KEY);
    await this.deps.storage.delete(HEALTH_KEY);
  }

  /** Lets go of the backups the retention rule does not keep (never those in `protect`). */
  private async prune(protect: Set<string>): Promise<void> {
    const records = await this.list();
    const expired = expiredBackups(records).filter((record) => !protect.has(record.id));
    if (expired.length === 0) return;
    try {
      await this.bucket().delete(expired.map((record) => this.key(record.id)));
    } catch (error) {
      console.error(`${this.deps.tag}: expired backups stay for now: ${describe(error)}`);
      return;
    }
    const gone = new Set(expired.map((record) => record.id));
    await this.save(records.filter((record) => !gone.has(record.id)));
  }

  /** Saves the list; the splits of backups no longer listed go with them. */
  private async save(records: BackupRecord[]): Promise<void> {
    await this.deps.storage.put(RECORDS_KEY, records);
    const splits = await this.splits();
    const listed = new Set(records.map((record) => record.id));
    const kept = Object.entries(splits).filter(([id]) => listed.has(id));
    if (kept.length !== Object.keys(splits).length) await this.deps.storage.put(SPLITS_KEY, Object.fromEntries(kept));
  }

  private async splits(): Promise<Record<string, ImageSplit>> {
    return (await this.deps.storage.get<Record<string, ImageSplit>>(SPLITS_KEY)) ?? {};
  }

  private key(id: string): string {
    return `${this.deps.prefix}${id}.tar.zst`;
  }

  private bucket(): R2Bucket {
    const bucket = this.deps.bucket();
    if (!bucket) {
      throw new AppError(
        ErrorCode.BACKUP_UNAVAILABLE,
        "This deployment has no backup bucket: add the BACKUPS R2 binding in wrangler.jsonc.",
      );
    }
    return bucket;
  }
}

function integrity(reason: string): AppError {
  return new AppError(ErrorCode.BACKUP_INTEGRITY, `The backup is damaged (${reason}). Nothing was changed.`);
}

/** 24 random lowercase letters and digits. */
function newBackupId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return [...bytes].map((byte) => alphabet[byte % alphabet.length]).join("");
}
