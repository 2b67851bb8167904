import { useEffect, useMemo } from "react";
import type { FileChange, FileChangesEvent } from "../../protocol/files";
import type { FilesApi } from "../api/files";

/** Files changed; events were lost (re-read everything); or /workspace/.git changed (a commit, a checkout). */
export type FileEvent = { kind: "changes"; changes: FileChange[] } | { kind: "resync" } | { kind: "git" };
export type FileEventListener = (event: FileEvent) => void;

/**
 * One EventSource per workspace on `/files/watch`, shared by the tree and the
 * editor. On reconnect (and when the server says events were lost) listeners
 * get `resync` and re-read what they show.
 */
export class FileEvents {
  private readonly listeners = new Set<FileEventListener>();
  private source: EventSource | undefined;
  private connectedOnce = false;

  constructor(private readonly url: string) {}

  subscribe(listener: FileEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  open(): void {
    if (this.source) return;
    const source = new EventSource(this.url);
    this.source = source;
    source.addEventListener("ready", () => {
      // A later "ready" means the stream came back: anything may have changed meanwhile.
      if (this.connectedOnce) this.emit({ kind: "resync" });
      this.connectedOnce = true;
      document.documentElement.dataset.fileWatch = "ready";
    });
    source.addEventListener("resync", () => this.emit({ kind: "resync" }));
    source.addEventListener("git", () => this.emit({ kind: "git" }));
    source.addEventListener("changes", (event) => {
      const { changes } = JSON.parse((event as MessageEvent<string>).data) as FileChangesEvent;
      this.emit({ kind: "changes", changes });
    });
  }

  close(): void {
    this.source?.close();
    this.source = undefined;
  }

  private emit(event: FileEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

export function useFileEvents(files: FilesApi): FileEvents {
  const events = useMemo(() => new FileEvents(files.watchUrl()), [files]);
  useEffect(() => {
    events.open();
    return () => events.close();
  }, [events]);
  return events;
}
