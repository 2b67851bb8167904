import { useState } from "react";
import type { RestoreNotice } from "../../protocol/workspace";
import { MovedNotice } from "../backups/MovedNotice";
import { ago } from "../time";

const seenKey = (workspaceId: string) => `cloud-ide.restore-seen.${workspaceId}`;

/**
 * Says at once that the container vanished and what came back: the latest
 * snapshot (changes after it are gone) or the template (nothing was saved).
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
          It came back from the last save, {new Date(savedAt).toLocaleString()} ({ago(Date.now() - savedAt)}): changes
          made after that save are lost.
        </span>
      ) : (
        <span>
          Nothing had been saved yet, so it started again from its template: files made or changed since it was created
          are lost.
        </span>
      )}{" "}
      <span>Programs that were running (dev servers, jobs in the terminal) stopped.</span>{" "}
      <button type="button" data-testid="loss-notice-dismiss" onClick={dismiss}>
        Understood
      </button>
    </div>
  );
}
