/**
 * Work in the page that the server does not have yet (for example an editor
 * buffer not written to disk). A snapshot saves the container's disk only, so
 * leaving the page with such work loses it.
 *
 * The editor calls `registerUnsaved("editor", () => hasDirtyBuffers())` once
 * and keeps the returned function to unregister. While any check says dirty,
 * the browser asks before the page is left.
 */
type DirtyCheck = () => boolean;

const checks = new Map<string, DirtyCheck>();
let listening = false;

function onBeforeUnload(event: BeforeUnloadEvent): void {
  if (!hasUnsavedWork()) return;
  event.preventDefault();
  // Older browsers show the prompt only when returnValue is set.
  event.returnValue = "";
}

/** Registers a check under `key` (replacing an earlier one); returns a function that removes it. */
export function registerUnsaved(key: string, isDirty: DirtyCheck): () => void {
  checks.set(key, isDirty);
  if (!listening && typeof window !== "undefined") {
    window.addEventListener("beforeunload", onBeforeUnload);
    listening = true;
  }
  return () => {
    if (checks.get(key) === isDirty) checks.delete(key);
  };
}

/** Whether any registered part of the page holds work the server does not have. */
export function hasUnsavedWork(): boolean {
  for (const isDirty of checks.values()) {
    try {
      if (isDirty()) return true;
    } catch {
      // A broken check must not hide the others; treat it as clean.
    }
  }
  return false;
}
