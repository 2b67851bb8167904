import type { BackupList, BackupRecord, RestoreResult } from "../../protocol/backups";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { describe } from "../errors";
import type { FileWatcher } from "../files/file-watcher";
import type { Lifecycle } from "../lifecycle/lifecycle";
import type { ContainerSandbox } from "../sandbox/sandbox";
import { restartTerminals } from "./directory-archive";
import type { WorkspaceBackups } from "./workspace-backups";

export interface BackupFlowDeps {
  /** The workspace's id (its Durable Object's name). */
  id: string;
  backups: WorkspaceBackups;
  lifecycle: Lifecycle;
  sandbox: ContainerSandbox;
  watcher: FileWatcher;
  /** The workspace's name, for a download's file name. */
  name(): Promise<string>;
}

/**
 * What the backup routes (backup-routes.ts) do with the rest of the
 * workspace: a backup and a restore have the disk alone, like a save; a
 * restore restarts terminals and the file watcher; a download as `.tar.gz`
 * is recompressed in the running container.
 */
export class BackupFlows {
  constructor(private readonly deps: BackupFlowDeps) {}

  health(): ReturnType<WorkspaceBackups["health"]> {
    return this.deps.backups.health();
  }

  async list(): Promise<BackupList> {
    return { backups: await this.deps.backups.list(), backup: await this.deps.backups.health() };
  }

  /** A backup now (waking the workspace): it has the disk alone, like a save. */
  create(): Promise<BackupRecord> {
    const { lifecycle, backups } = this.deps;
    return lifecycle.exclusive(async () => {
      await lifecycle.ensureRunning();
      return backups.create("manual");
    });
  }

  /**
   * Replaces the files with a backup's, after backing up the current ones
   * (the undo). Terminals start new shells in the restored tree; the file
   * watcher starts again, so pages and language servers read everything anew.
   */
  restore(backupId: string): Promise<RestoreResult> {
    const { lifecycle, backups, sandbox, watcher } = this.deps;
    return lifecycle.exclusive(async () => {
      await lifecycle.ensureRunning();
      const result = await backups.restore(backupId);
      const when = result.restored.createdAt.slice(0, 16).replace("T", " ");
      await restartTerminals(
        // Through the resident agent: an exec's round trip fewer before the restore answers.
        sandbox.quick,
        `cloud-ide: the files were restored from the backup of ${when} UTC; this terminal started again in the restored tree.`,
      ).catch((error) => console.error(`restarting terminals after a restore: ${describe(error)}`));
      watcher.restart();
      // A restore replaces everything the journal could replay: a checkpoint keeps it and empties the journal.
      await lifecycle.snapshot().catch((error) => console.error(`a checkpoint after a restore: ${describe(error)}`));
      return result;
    });
  }

  /** "Move to the current image": back up, then a new container from the current image with those files. */
  async upgrade(): Promise<WorkspaceStatus> {
    await this.deps.lifecycle.upgrade();
    return { ...(await this.deps.lifecycle.status(this.deps.id)), backup: await this.deps.backups.health() };
  }

  delete(id: string): Promise<void> {
    return this.deps.backups.delete(id);
  }

  pin(id: string, pinned: boolean): Promise<BackupRecord> {
    return this.deps.backups.setPinned(id, pinned);
  }

  /**
   * `GET /backups/download?id&format`: as stored (`.tar.zst`, from R2, no
   * container needed) or, by default, as `.tar.gz` (recompressed by zstd and
   * gzip in the running container; a GET never wakes it).
   */
  async download(id: string, format: "gz" | "zst"): Promise<Response> {
    const { record, body } = await this.deps.backups.object(id);
    const name = `${await this.deps.name()}-${record.createdAt.slice(0, 16).replace(/[T:]/g, "-")}`
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .slice(0, 120);
    if (format === "zst") {
      return new Response(body, {
        headers: {
          "Content-Type": "application/zstd",
          "Content-Disposition": `attachment; filename="${name}.tar.zst"`,
          "Content-Length": String(record.size),
          "Cache-Control": "no-store",
        },
      });
    }
    return new Response(await this.recompressed(body), {
      headers: {
        "Content-Type": "application/gzip",
        "Content-Disposition": `attachment; filename="${name}.tar.gz"`,
        "Cache-Control": "no-store",
      },
    });
  }

  /** A `.tar.zst` as `.tar.gz`, made by zstd and gzip in the running container; open, it counts as activity. */
  private async recompressed(body: ReadableStream<Uint8Array>): Promise<ReadableStream<Uint8Array>> {
    const { lifecycle, sandbox } = this.deps;
    try {
      await lifecycle.whenAwake();
    } catch (error) {
      await body.cancel().catch(() => {});
      throw error;
    }
    const proc = await sandbox.exec(["sh", "-c", "zstd -q -d -c | gzip -c"], {
      stdin: body,
      stdout: "pipe",
      stderr: "pipe",
      wake: false,
    });
    const stdout = proc.stdout;
    if (!stdout) throw new Error("zstd has no stdout");
    lifecycle.activity.begin();
    let ended = false;
    const end = () => {
      if (!ended) lifecycle.activity.end();
      ended = true;
    };
    return stdout.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        async flush(controller) {
          try {
            const code = await proc.exitCode;
            if (code !== 0) controller.error(new Error(`zstd | gzip exited with ${code}`));
          } finally {
            end();
          }
        },
        cancel: end,
      }),
    );
  }
}
