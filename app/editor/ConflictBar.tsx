import type { BufferInfo } from "./editor-model";

/** Unsaved edits met a change on disk (or the file was deleted): keep mine, take the disk's, or compare. */
export function ConflictBar({
  buffer,
  onResolve,
  onCompare,
}: {
  buffer: BufferInfo;
  onResolve: (choice: "mine" | "disk") => void;
  onCompare: () => void;
}) {
  const deleted = buffer.conflict !== undefined && "deleted" in buffer.conflict;
  return (
    <div className="editor-conflict" role="alert" data-testid="conflict-bar">
      <span>
        {deleted
          ? "This file was deleted on disk. Saving will create it again."
          : "This file changed on disk while you have unsaved changes."}
      </span>
      <button type="button" data-testid="conflict-keep" onClick={() => onResolve("mine")}>
        Keep mine
      </button>
      <button type="button" data-testid="conflict-take" onClick={() => onResolve("disk")}>
        {deleted ? "Close" : "Take disk version"}
      </button>
      {!deleted && (
        <button type="button" data-testid="conflict-compare" onClick={onCompare}>
          {buffer.comparing ? "Hide comparison" : "Compare"}
        </button>
      )}
    </div>
  );
}
