import { useCallback, useEffect, useState } from "react";
import type { BackupList } from "../../protocol/backups";
import type { BackupsApi } from "../api/backups";
import { download } from "../components/ContextMenu";
import { useAction } from "../hooks/useAction";
import { backupTime, bytes, REASONS } from "./format";
import "./backups.css";

interface Props {
  api: BackupsApi;
  /** Wakes the workspace (a .tar.gz download and a restore need it running). */
  onWake: () => Promise<void>;
  /** Reloads the workspace's status (its last backup). */
  onChanged: () => Promise<void>;
  onClose: () => void;
}

/**
 * The workspace's backups, newest first: time, size and why each was taken;
 * pin, restore (after a confirmation; the current files are backed up first,
 * so it can be undone), download and delete.
 */
export function BackupsPanel({ api, onWake, onChanged, onClose }: Props) {
  const action = useAction();
  const [list, setList] = useState<BackupList>();
  const reload = useCallback(async () => setList(await api.list()), [api]);
  useEffect(() => {
    void action.run(reload);
  }, [action.run, reload]);

  const act = (label: string, run: () => Promise<unknown>) =>
    action.run(async () => {
      await run();
      await reload();
      await onChanged();
    }, label);

  return (
    <aside className="floating-panel backups-panel" role="dialog" aria-label="Backups" data-testid="backups-panel">
      <header>
        <h2>Backups</h2>
        <button
          type="button"
          data-testid="backup-now"
          disabled={action.busy !== undefined}
          onClick={() => void act("Backing up…", () => api.create())}
        >
          Back up now
        </button>
        <button
          type="button"
          aria-label="Close backups"
          title="Close backups"
          data-testid="backups-close"
          onClick={onClose}
        >
          ✕
        </button>
      </header>
      <p className="backups-note">
        Your files (<code>/workspace</code> and your home folder, <code>/root</code>), kept in R2 apart from the system:
        taken at every sleep and daily while you work. The last 10 are kept, then one a day for 30 days, and every
        pinned one.
      </p>
      {list?.backup.lastError && (
        <p className="status-error" role="alert" data-testid="backup-error">
          The latest backup failed: {list.backup.lastError}
        </p>
      )}
      {action.busy && <p className="backups-busy">{action.busy}</p>}
      {action.error && (
        <p className="status-error" role="alert" data-testid="backups-action-error">
          {action.error}
        </p>
      )}
      {list && list.backups.length === 0 && <p data-testid="backups-empty">No backups yet.</p>}
      <ul className="backups-list" data-testid="backups-list">
        {list?.backups.map((backup) => (
          <li key={backup.id} data-testid="backup-row" data-backup-id={backup.id}>
            <span className="backup-time" title={backup.createdAt}>
              {backupTime(backup.createdAt)}
            </span>
            <span className="backup-size">{bytes(backup.size)}</span>
            <span className="backup-reason">{REASONS[backup.reason]}</span>
            <label className="backup-pin" title="Pinned backups are kept until you delete them">
              <input
                type="checkbox"
                checked={backup.pinned}
                data-testid="backup-pin"
                onChange={(e) => void act("Saving…", () => api.pin(backup.id, e.target.checked))}
              />{" "}
              Pin
            </label>
            <button
              type="button"
              data-testid="backup-restore"
              disabled={action.busy !== undefined}
              onClick={() => {
                const when = backupTime(backup.createdAt);
                if (
                  !window.confirm(
                    `Replace your files (/workspace and /root) with the backup of ${when}? Your current files are backed up first, so you can undo this. Terminals start again in the restored files.`,
                  )
                )
                  return;
                void act(`Restoring the backup of ${when}…`, async () => {
                  await onWake();
                  await api.restore(backup.id);
                });
              }}
            >
              Restore
            </button>
            <button
              type="button"
              data-testid="backup-download"
              title="A .tar.gz of the files (wakes the workspace)"
              onClick={() =>
                void action.run(async () => {
                  await onWake();
                  download(api.downloadUrl(backup.id, "gz"));
                }, "Preparing the download…")
              }
            >
              .tar.gz
            </button>
            <a href={api.downloadUrl(backup.id, "zst")} download title="The backup as stored (tar + zstd)">
              .tar.zst
            </a>
            <button
              type="button"
              data-testid="backup-delete"
              disabled={action.busy !== undefined}
              onClick={() => {
                if (!window.confirm(`Delete the backup of ${backupTime(backup.createdAt)}? It cannot be recovered.`))
                  return;
                void act("Deleting…", () => api.remove(backup.id));
              }}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
