import { useState } from "react";
import type { RestoreNotice } from "../../protocol/workspace";
import { MovedNotice } from "../backups/MovedNotice";
import { ago } from "../time";

const seenKey = (workspaceId: string) => `cloud-ide.restore-seen.${workspaceId}`;

/**
 * Says at once that the container vanished and what came back: the latest
 * snapshot or the template (nothing was saved), with the save journal over it
 * (the IDE's saves, and what programs wrote in /workspace up to the last pass).
 * Shown until the person dismisses it (remembered per restore).
 */
export function LossNotice({ workspaceId, restored }: { workspaceId: string; restored: RestoreNotice | undefined }) {
  const [seen, setSeen] = useState(() => localStorage.getItem(seenKey(workspaceId)));
  if (!restored || seen === restored.at) return null;
  const dismiss = () => {
    localStorage.setItem(seenKey(workspaceId), restored.at);
    setSeen(restored.at);
  };
  // Started on the current image with the latest backup: said in its own words.
  if (restored.from === "backup") return <MovedNotice restored={restored} onDismiss={dismiss} />;
  const savedAt = restored.savedAt ? Date.parse(restored.savedAt) : undefined;
  return (
    <div className="loss-notice" role="alert" data-testid="loss-notice" data-from={restored.from}>
      <strong>The workspace's container stopped unexpectedly and was replaced.</strong>{" "}
      {savedAt !== undefined ? (
        <span>
          It came back from the last save, {new Date(savedAt).toLocaleString()} ({ago(Date.now() - savedAt)}), with
          every file saved in the IDE since.
        </span>
      ) : (
        <span>
          Nothing had been saved yet, so it started again from its template, with every file saved in the IDE.
        </span>
      )}{" "}
      <span>
        What programs wrote in /workspace is back up to about 30 seconds before it stopped; later changes, and changes
        outside /workspace (installed packages) since the last save, are lost.
      </span>{" "}
      <span>Programs that were running (dev servers, jobs in the terminal) stopped.</span>{" "}
      <button type="button" data-testid="loss-notice-dismiss" onClick={dismiss}>
        Understood
      </button>
    </div>
  );
}
