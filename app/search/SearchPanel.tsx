import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { EditorModel } from "../editor/editor-model";
import { SearchResults } from "./SearchResults";
import type { SearchModel } from "./search-model";
import "./search.css";

/**
 * Search in files: the query with its toggles (match case, whole word,
 * regular expression), include and exclude globs, ignored files on request,
 * and the results as they stream in. `focusRequest` changes each time
 * Ctrl/Cmd+Shift+F asks for the query box.
 */
export function SearchPanel({
  model,
  editor,
  focusRequest,
}: {
  model: SearchModel;
  editor: EditorModel;
  focusRequest: number;
}) {
  const snapshot = useSyncExternalStore(model.subscribe, model.getSnapshot);
  const { options, status } = snapshot;
  const [details, setDetails] = useState(options.include !== "" || options.exclude !== "" || options.includeIgnored);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focusRequest === 0) return;
    input.current?.focus();
    input.current?.select();
  }, [focusRequest]);

  const toggle = (name: "matchCase" | "wholeWord" | "regex", label: string, text: string) => (
    <button
      type="button"
      className="search-toggle"
      aria-pressed={options[name]}
      aria-label={label}
      title={label}
      data-testid={`search-${name}`}
      onClick={() => model.set({ [name]: !options[name] })}
    >
      {text}
    </button>
  );
  const matchCount = `${snapshot.matches.toLocaleString()} result${snapshot.matches === 1 ? "" : "s"} in ${snapshot.files.length.toLocaleString()} file${snapshot.files.length === 1 ? "" : "s"}`;
  return (
    <search className="search-panel" data-testid="search-panel" aria-label="Search in files">
      <div className="search-query">
        <input
          ref={input}
          aria-label="Search in files"
          placeholder="Search"
          data-testid="search-input"
          spellCheck={false}
          value={options.query}
          onChange={(event) => model.set({ query: event.target.value })}
          onKeyDown={(event) => {
            if (event.key === "Enter") void model.run();
          }}
        />
        {toggle("matchCase", "Match case", "Aa")}
        {toggle("wholeWord", "Whole words", "ab")}
        {toggle("regex", "Regular expression", ".*")}
        <button
          type="button"
          className="search-toggle"
          aria-expanded={details}
          aria-label="Files to include and exclude"
          title="Files to include and exclude"
          onClick={() => setDetails((open) => !open)}
        >
          …
        </button>
      </div>
      {details && (
        <div className="search-details">
          <input
            aria-label="Files to include"
            placeholder="Include: src, *.ts"
            data-testid="search-include"
            value={options.include}
            onChange={(event) => model.set({ include: event.target.value })}
          />
          <input
            aria-label="Files to exclude"
            placeholder="Exclude: *.md, dist"
            data-testid="search-exclude"
            value={options.exclude}
            onChange={(event) => model.set({ exclude: event.target.value })}
          />
          <label className="search-ignored">
            <input
              type="checkbox"
              checked={options.includeIgnored}
              onChange={(event) => model.set({ includeIgnored: event.target.checked })}
            />
            Also ignored files (.gitignore, node_modules)
          </label>
        </div>
      )}
      <div className="search-status" role="status" data-testid="search-status">
        {status === "searching" && `Searching… ${snapshot.matches > 0 ? matchCount : ""}`}
        {status === "done" && (snapshot.matches === 0 ? "No results." : matchCount)}
        {status === "done" && snapshot.limitHit && ` (stopped early: ${LIMITS[snapshot.limitHit]})`}
      </div>
      {snapshot.error && (
        <pre className="search-error" role="alert" data-testid="search-error">
          {snapshot.error}
        </pre>
      )}
      <SearchResults
        files={snapshot.files}
        collapsed={snapshot.collapsed}
        onToggle={(path) => model.toggle(path)}
        onOpen={(path, line, column) => void editor.open(path, { line, column })}
      />
    </search>
  );
}

const LIMITS = {
  results: "too many results; narrow the search",
  bytes: "too much text; narrow the search",
  time: "it took too long; narrow the search",
} as const;
