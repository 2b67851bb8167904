import { useSyncExternalStore } from "react";
import type { EditorModel } from "../editor/editor-model";
import type { Action } from "../hooks/useAction";
import type { LanguageServices, ServicesSnapshot } from "./language-services";
import type { Problem } from "./problems-model";
import "./LanguagePanel.css";

const NAMES: Record<string, string> = {
  typescript: "TypeScript",
  python: "Python",
  css: "CSS",
  html: "HTML",
  json: "JSON",
};

/**
 * Under the editor: the language servers' state, the Problems list (every
 * diagnostic, click to go) and the References list of the last Find
 * references. Collapsed to its bar until opened.
 */
export function LanguagePanel({
  services,
  editor,
  action,
}: {
  services: LanguageServices;
  editor: EditorModel;
  action: Action;
}) {
  const panel = useSyncExternalStore(services.subscribe, services.getSnapshot);
  const { errors, warnings } = useSyncExternalStore(services.problems.subscribe, services.problems.getSnapshot);
  const references = useSyncExternalStore(services.references.subscribe, services.references.getSnapshot);
  const toggle = (tab: ServicesSnapshot["tab"]) => services.setPanel({ open: !(panel.open && panel.tab === tab), tab });
  return (
    <div className="language-panel" data-testid="language-panel" data-open={panel.open ? "true" : "false"}>
      <div className="language-panel-bar">
        <button
          type="button"
          data-testid="problems-toggle"
          aria-pressed={panel.open && panel.tab === "problems"}
          onClick={() => toggle("problems")}
        >
          Problems <span className="problem-count error">⊗ {errors}</span>{" "}
          <span className="problem-count warning">⚠ {warnings}</span>
        </button>
        <button
          type="button"
          data-testid="references-toggle"
          aria-pressed={panel.open && panel.tab === "references"}
          onClick={() => toggle("references")}
        >
          References{references.symbol ? `: ${references.symbol}` : ""}
        </button>
        <span className="spacer" />
        {action.busy && <span className="language-busy">{action.busy}…</span>}
        {panel.servers.map((s) => (
          <span
            key={s.server}
            className={`language-server-state state-${s.state}`}
            data-testid="language-server-state"
            data-server={s.server}
            data-state={s.state}
            title={s.message ?? s.state}
          >
            {NAMES[s.server] ?? s.server}: {s.state}
          </span>
        ))}
      </div>
      {action.error && (
        <div className="editor-warning" role="alert" data-testid="language-error">
          {action.error}
          <button type="button" onClick={action.dismiss}>
            Dismiss
          </button>
        </div>
      )}
      {panel.open && panel.tab === "problems" && <ProblemsList services={services} editor={editor} />}
      {panel.open && panel.tab === "references" && <ReferencesList services={services} editor={editor} />}
    </div>
  );
}

function ProblemsList({ services, editor }: { services: LanguageServices; editor: EditorModel }) {
  const { problems } = useSyncExternalStore(services.problems.subscribe, services.problems.getSnapshot);
  if (problems.length === 0) return <p className="language-empty">No problems in the open files.</p>;
  return (
    <ul className="language-list" data-testid="problems" aria-label="Problems">
      {problems.map((p: Problem) => (
        <li key={`${p.path}:${p.line}:${p.column}:${p.severity}:${p.message}`}>
          <button
            type="button"
            data-testid="problem"
            data-path={p.path}
            data-line={p.line}
            data-severity={p.severity}
            onClick={() => void editor.open(p.path, { line: p.line, column: p.column })}
          >
            <span className={`problem-icon ${p.severity}`}>{p.severity === "error" ? "⊗" : "⚠"}</span>
            <span className="language-message">{p.message}</span>
            <span className="language-place">
              {p.path}:{p.line}:{p.column}
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}

function ReferencesList({ services, editor }: { services: LanguageServices; editor: EditorModel }) {
  const { state, references, message, symbol } = useSyncExternalStore(
    services.references.subscribe,
    services.references.getSnapshot,
  );
  if (state === "searching") return <p className="language-empty">Finding references to {symbol}…</p>;
  if (state === "failed") {
    return (
      <p className="language-empty" data-testid="references-failed">
        Finding references failed: {message}
      </p>
    );
  }
  if (references.length === 0) {
    return <p className="language-empty">{symbol ? `No references to ${symbol}.` : "Nothing searched yet."}</p>;
  }
  return (
    <ul className="language-list" data-testid="references" aria-label={`References to ${symbol}`}>
      {references.map((r) => (
        <li key={`${r.path}:${r.line}:${r.column}`}>
          <button
            type="button"
            data-testid="reference"
            data-path={r.path}
            data-line={r.line}
            onClick={() => void editor.open(r.path, { line: r.line, column: r.column })}
          >
            <span className="language-place">
              {r.path}:{r.line}
            </span>
            <code className="language-message">{r.text}</code>
          </button>
        </li>
      ))}
    </ul>
  );
}
