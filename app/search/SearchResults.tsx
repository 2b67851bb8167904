import { useVirtualizer } from "@tanstack/react-virtual";
import { useMemo, useRef } from "react";
import type { SearchMatch } from "../../protocol/search";
import type { FileResults } from "./search-model";

const ROW_HEIGHT = 22;

type Row =
  | { kind: "file"; path: string; count: number; open: boolean }
  | { kind: "match"; path: string; match: SearchMatch };

/**
 * The results, grouped by file (a click folds a file), each matching line
 * with its matches highlighted; a click opens the file at that line. The
 * rows are virtualized, so thousands of results scroll smoothly.
 */
export function SearchResults({
  files,
  collapsed,
  onToggle,
  onOpen,
}: {
  files: readonly FileResults[];
  collapsed: ReadonlySet<string>;
  onToggle: (path: string) => void;
  onOpen: (path: string, line: number, column: number) => void;
}) {
  const rows = useMemo(() => {
    const list: Row[] = [];
    for (const { path, matches } of files) {
      const open = !collapsed.has(path);
      list.push({ kind: "file", path, count: matches.length, open });
      if (open) for (const match of matches) list.push({ kind: "match", path, match });
    }
    return list;
  }, [files, collapsed]);
  const scroll = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroll.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  return (
    <div className="search-results" ref={scroll} data-testid="search-results">
      <ul style={{ height: virtualizer.getTotalSize() }} aria-label="Search results">
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index] as Row;
          const style = { transform: `translateY(${item.start}px)`, height: ROW_HEIGHT };
          if (row.kind === "file") {
            const slash = row.path.lastIndexOf("/");
            return (
              <li key={`f:${row.path}`} style={style}>
                <button
                  type="button"
                  className="search-file"
                  aria-expanded={row.open}
                  data-testid="search-file"
                  data-path={row.path}
                  title={row.path}
                  onClick={() => onToggle(row.path)}
                >
                  <span aria-hidden="true">{row.open ? "▾" : "▸"}</span>
                  <span className="search-file-name">{row.path.slice(slash + 1)}</span>
                  <span className="search-file-folder">{row.path.slice(0, Math.max(0, slash))}</span>
                  <span className="search-count">{row.count}</span>
                </button>
              </li>
            );
          }
          const { match } = row;
          return (
            <li key={`m:${row.path}:${match.line}:${item.index}`} style={style}>
              <button
                type="button"
                className="search-match"
                data-testid="search-match"
                data-path={row.path}
                data-line={match.line}
                title={`${row.path}:${match.line}:${match.column}`}
                onClick={() => onOpen(row.path, match.line, match.column)}
              >
                <span className="search-line-number">{match.line}</span>
                <Highlighted match={match} />
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function Highlighted({ match }: { match: SearchMatch }) {
  const parts: React.ReactNode[] = [];
  let at = 0;
  for (const [start, end] of match.ranges) {
    if (start > at) parts.push(match.text.slice(at, start));
    parts.push(<mark key={start}>{match.text.slice(start, end)}</mark>);
    at = end;
  }
  parts.push(match.text.slice(at));
  return <span className="search-line">{parts}</span>;
}
