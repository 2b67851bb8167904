import { useVirtualizer } from "@tanstack/react-virtual";
import { useMemo, useRef } from "react";
import type { GitFileChange } from "../../protocol/git";
import { codeLabel } from "../files/change-marks";
import { nameOf, parentOf } from "../files/paths";
import type { GitModel, RepositoryStatus } from "./git-model";

const ROW_HEIGHT = 22;

type Group = "conflicted" | "staged" | "changed" | "untracked";
const GROUPS: { id: Group; title: string }[] = [
  { id: "conflicted", title: "Conflicts" },
  { id: "staged", title: "Staged" },
  { id: "changed", title: "Changes" },
  { id: "untracked", title: "Untracked" },
];

type Row =
  | { kind: "group"; group: Group; title: string; count: number }
  | { kind: "file"; group: Group; change: GitFileChange };

/**
 * The changed files, grouped, as one virtualized list (10,000 changes stay
 * smooth): a click shows the diff; + stages, − unstages, ↶ discards (asks first).
 */
export function ChangeList({
  status,
  model,
  run,
  selected,
}: {
  status: RepositoryStatus;
  model: GitModel;
  run: (action: () => Promise<unknown>, label?: string) => Promise<boolean>;
  selected: { path: string; staged: boolean } | undefined;
}) {
  const rows = useMemo(() => {
    const out: Row[] = [];
    for (const { id, title } of GROUPS) {
      const changes = status[id];
      if (changes.length === 0) continue;
      out.push({ kind: "group", group: id, title, count: changes.length });
      for (const change of changes) out.push({ kind: "file", group: id, change });
    }
    return out;
  }, [status]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });

  const discard = (paths: string[]) => {
    const what = paths.length === 1 ? `the changes to "${paths[0]}"` : `the changes to ${paths.length} files`;
    if (confirm(`Discard ${what}? This cannot be undone.`)) void run(() => model.discard(paths), "Discarding…");
  };
  const groupActions = (group: Group) => {
    const paths = () => model.paths(group);
    if (group === "staged") return [{ label: "−", title: "Unstage all", act: () => run(() => model.unstage(paths())) }];
    const stage = { label: "+", title: "Stage all", act: () => run(() => model.stage(paths()), "Staging…") };
    if (group === "conflicted") return [stage];
    return [stage, { label: "↶", title: "Discard all", act: () => discard(paths()) }];
  };
  const fileActions = (group: Group, path: string) => {
    if (group === "staged") return [{ label: "−", title: "Unstage", act: () => run(() => model.unstage([path])) }];
    const stage = { label: "+", title: "Stage", act: () => run(() => model.stage([path])) };
    if (group === "conflicted") return [stage];
    return [stage, { label: "↶", title: "Discard changes", act: () => discard([path]) }];
  };

  if (rows.length === 0) return <p className="placeholder git-clean">No changes.</p>;
  return (
    <div ref={scrollRef} className="git-changes" data-testid="git-changes">
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index];
          if (!row) return null;
          const style = { transform: `translateY(${item.start}px)`, height: ROW_HEIGHT };
          if (row.kind === "group") {
            return (
              <div
                key={`g-${row.group}`}
                className="git-row git-group"
                style={style}
                data-testid={`git-group-${row.group}`}
              >
                <span className="git-group-title">
                  {row.title} <span className="git-count">{row.count}</span>
                </span>
                <Actions actions={groupActions(row.group)} target={row.title} />
              </div>
            );
          }
          const { path, code, from } = row.change;
          const staged = row.group === "staged";
          const isSelected = selected?.path === path && selected.staged === staged;
          return (
            <div
              key={`${row.group}-${path}`}
              className={`git-row git-file${isSelected ? " selected" : ""}`}
              style={style}
              data-testid="git-file"
              data-group={row.group}
              data-path={path}
              title={from ? `${from} → ${path}` : path}
            >
              <button type="button" className="git-file-open" onClick={() => void model.openDiff(path, staged)}>
                <span className="git-file-name">{nameOf(path)}</span>
                <span className="git-file-dir">{parentOf(path) === "." ? "" : parentOf(path)}</span>
              </button>
              <Actions actions={fileActions(row.group, path)} target={path} />
              <span className={`git-code git-code-${code === "?" ? "untracked" : code}`} data-testid="git-code">
                {codeLabel(code)}
              </span>
            </div>
          );
        })}
      </div>
    </div>
  );
}

function Actions({
  actions,
  target,
}: {
  actions: { label: string; title: string; act: () => unknown }[];
  target: string;
}) {
  return (
    <span className="git-actions">
      {actions.map((a) => (
        <button
          key={a.title}
          type="button"
          title={a.title}
          aria-label={`${a.title}: ${target}`}
          data-testid={`git-${a.title.toLowerCase().replaceAll(" ", "-")}`}
          onClick={(e) => {
            e.stopPropagation();
            void a.act();
          }}
        >
          {a.label}
        </button>
      ))}
    </span>
  );
}
