import type { RestoreNotice } from "../../protocol/workspace";
import { backupTime } from "./format";

const WHY: Record<NonNullable<RestoreNotice["reason"]>, string> = {
  "image-changed": "Moved to the current system image",
  "snapshot-expired": "The saved system had expired, so the workspace started on the current system image",
  "snapshot-unavailable":
    "The saved system could not be restored, so the workspace started on the current system image",
};

/**
 * What a start from the current image plus the latest backup means, in plain
 * words: the files came back from that backup; what was installed outside
 * them comes back only through the setup recipe.
 */
export function MovedNotice({ restored, onDismiss }: { restored: RestoreNotice; onDismiss: () => void }) {
  return (
    <div className="loss-notice moved-notice" role="status" data-testid="moved-notice" data-reason={restored.reason}>
      <strong>
        {WHY[restored.reason ?? "image-changed"]}; your files were restored from the backup of{" "}
        {restored.savedAt ? backupTime(restored.savedAt) : "the latest save"}.
      </strong>{" "}
      <span>
        Programs installed outside your files (apt packages, global tools) are not kept across systems: put their
        installation in <code>.cloud-ide/setup.sh</code>, which runs in the "setup" terminal after each move.
      </span>{" "}
      <button type="button" data-testid="moved-notice-dismiss" onClick={onDismiss}>
        Understood
      </button>
    </div>
  );
}
