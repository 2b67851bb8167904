import { pathOfUri } from "../../protocol/language-servers";

export type Severity = "error" | "warning" | "info" | "hint";

/** One diagnostic as the Problems list shows it (1-based line and column). */
export interface Problem {
  path: string;
  line: number;
  column: number;
  severity: Severity;
  message: string;
  source?: string;
}

export interface ProblemsSnapshot {
  readonly problems: readonly Problem[];
  readonly errors: number;
  readonly warnings: number;
}

/** An LSP Diagnostic, as far as the list needs it. */
export interface LspDiagnostic {
  range: { start: { line: number; character: number } };
  severity?: number;
  message: string;
  source?: string;
}

const ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2, hint: 3 };

export function severityOf(value: number | undefined): Severity {
  return value === 2 ? "warning" : value === 3 ? "info" : value === 4 ? "hint" : "error";
}

/**
 * Every file's latest diagnostics from every language server (each
 * publish replaces that file's list), sorted by file, then line. Hints (an
 * unused variable greyed out) stay in the editor and out of the list.
 */
export class ProblemsModel {
  private readonly byFile = new Map<string, { server: string; problems: Problem[] }>();
  private snapshot: ProblemsSnapshot = { problems: [], errors: 0, warnings: 0 };
  private readonly listeners = new Set<() => void>();

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): ProblemsSnapshot => this.snapshot;

  /** A server published diagnostics for a file (an empty list clears it). */
  publish(server: string, uri: string, diagnostics: readonly LspDiagnostic[]): void {
    const path = pathOfUri(uri);
    if (path === undefined) return;
    const problems = diagnostics
      .map((d) => ({
        path,
        line: d.range.start.line + 1,
        column: d.range.start.character + 1,
        severity: severityOf(d.severity),
        message: d.message,
        source: d.source,
      }))
      .filter((p) => p.severity !== "hint");
    if (problems.length === 0) {
      if (!this.byFile.delete(path)) return;
    } else {
      this.byFile.set(path, { server, problems });
    }
    this.changed();
  }

  /** Forgets what a server said (it restarted and will publish again). */
  clearServer(server: string): void {
    let changed = false;
    for (const [path, entry] of this.byFile) {
      if (entry.server !== server) continue;
      this.byFile.delete(path);
      changed = true;
    }
    if (changed) this.changed();
  }

  private changed(): void {
    const problems = [...this.byFile.values()]
      .flatMap((entry) => entry.problems)
      .sort(
        (a, b) =>
          a.path.localeCompare(b.path) ||
          a.line - b.line ||
          ORDER[a.severity] - ORDER[b.severity] ||
          a.column - b.column,
      );
    this.snapshot = {
      problems,
      errors: problems.filter((p) => p.severity === "error").length,
      warnings: problems.filter((p) => p.severity === "warning").length,
    };
    for (const listener of this.listeners) listener();
  }
}
