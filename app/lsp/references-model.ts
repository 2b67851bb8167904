/** One place a symbol is used, as the References list shows it (1-based). */
export interface Reference {
  path: string;
  line: number;
  column: number;
  /** The line's text, trimmed (empty when it could not be read). */
  text: string;
}

export interface ReferencesSnapshot {
  readonly symbol: string | undefined;
  readonly state: "idle" | "searching" | "done" | "failed";
  readonly references: readonly Reference[];
  readonly message?: string;
}

/** The latest Find references result, for the panel under the editor. */
export class ReferencesModel {
  private snapshot: ReferencesSnapshot = { symbol: undefined, state: "idle", references: [] };
  private readonly listeners = new Set<() => void>();

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): ReferencesSnapshot => this.snapshot;

  set(snapshot: ReferencesSnapshot): void {
    this.snapshot = snapshot;
    for (const listener of this.listeners) listener();
  }
}
