import type { MergeView } from "@codemirror/merge";
import { type ReactNode, useCallback, useRef, useSyncExternalStore } from "react";
import type { FilesApi } from "../api/files";
import { nameOf } from "../files/paths";
import { CodeEditor, CompareView } from "./CodeEditor";
import { ConflictBar } from "./ConflictBar";
import type { BufferInfo, EditorModel } from "./editor-model";
import "./EditorPane.css";

/**
 * Tabs of open files over one CodeMirror view (app/editor/editor-model.ts
 * holds the buffers; this only shows them), and a `footer` under it (the
 * language servers' panel).
 */
export function EditorPane({ model, files, footer }: { model: EditorModel; files: FilesApi; footer?: ReactNode }) {
  const { buffers, active } = useSyncExternalStore(model.subscribe, model.getSnapshot);
  const merge = useRef<MergeView | undefined>(undefined);
  const onMerge = useCallback((view: MergeView | undefined) => {
    merge.current = view;
  }, []);
  const buffer = buffers.find((b) => b.path === active);
  if (buffers.length === 0) {
    return (
      <div className="editor-pane" data-testid="editor">
        <p className="placeholder">Open a file from the tree to edit it.</p>
        {footer}
      </div>
    );
  }
  return (
    <div className="editor-pane" data-testid="editor">
      <EditorTabs buffers={buffers} active={active} model={model} />
      {buffer?.conflict && (
        <ConflictBar
          buffer={buffer}
          onResolve={(choice) =>
            model.resolveConflict(
              buffer.path,
              choice,
              choice === "mine" && buffer.comparing ? merge.current?.a.state.doc.toString() : undefined,
            )
          }
          onCompare={() => model.setComparing(buffer.path, !buffer.comparing)}
        />
      )}
      {buffer?.message && (
        <div className="editor-warning" role="alert">
          {buffer.message}
        </div>
      )}
      {buffer?.note && (
        <div className="editor-warning" data-testid="editor-note">
          {buffer.note}
        </div>
      )}
      {buffer?.kind === "text" && buffer.readOnly && (
        <div className="editor-warning" data-testid="read-only-warning">
          This file is {formatSize(buffer.size)}: opened read-only to keep the editor responsive.
        </div>
      )}
      <div className="editor-body">
        {buffer && <BufferBody buffer={buffer} model={model} files={files} onMerge={onMerge} />}
      </div>
      {footer}
    </div>
  );
}

function EditorTabs({
  buffers,
  active,
  model,
}: {
  buffers: readonly BufferInfo[];
  active: string | undefined;
  model: EditorModel;
}) {
  return (
    <div className="editor-tabs" role="tablist" aria-label="Open files">
      {buffers.map((b) => (
        <div
          key={b.path}
          role="tab"
          tabIndex={0}
          aria-selected={b.path === active}
          title={b.path}
          data-testid="editor-tab"
          data-path={b.path}
          data-dirty={b.dirty ? "true" : "false"}
          // "loading" until the file's bytes and shared document are in: before that, false would only mean not yet.
          data-shared={b.kind === "loading" ? "loading" : b.shared ? "true" : "false"}
          className={`editor-tab${b.path === active ? " active" : ""}`}
          onClick={() => model.activate(b.path)}
          onKeyDown={(e) => e.key === "Enter" && model.activate(b.path)}
          onAuxClick={(e) => e.button === 1 && model.close(b.path)}
        >
          <span className="editor-tab-name">{nameOf(b.path)}</span>
          {b.dirty && (
            <span
              className="editor-tab-dirty"
              title={b.shared ? "Unsaved changes (shared: they stay in the workspace)" : "Unsaved changes"}
              data-testid="tab-dirty"
            >
              ●
            </span>
          )}
          <button
            type="button"
            className="editor-tab-close"
            aria-label={`Close ${nameOf(b.path)}`}
            title={`Close ${nameOf(b.path)}`}
            onClick={(e) => {
              e.stopPropagation();
              model.close(b.path);
            }}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

/** The active buffer: the editor, the compare view, an image, or why it cannot be shown. */
function BufferBody({
  buffer,
  model,
  files,
  onMerge,
}: {
  buffer: BufferInfo;
  model: EditorModel;
  files: FilesApi;
  onMerge: (view: MergeView | undefined) => void;
}) {
  switch (buffer.kind) {
    case "loading":
      return <p className="placeholder">Opening {buffer.path}…</p>;
    case "error":
      return (
        <p className="placeholder">
          Could not open {buffer.path}: {buffer.error}
        </p>
      );
    case "image":
      return (
        <div className="editor-image" data-testid="image-view">
          <img src={buffer.imageUrl} alt={buffer.path} />
          <p>
            {formatSize(buffer.size)} · <a href={files.downloadUrl(buffer.path)}>Download</a>
          </p>
        </div>
      );
    case "binary":
    case "too-large":
      return (
        <div className="editor-binary" data-testid="binary-view">
          <p>
            {buffer.kind === "binary" ? "A binary file" : "Too large to open here"} of {formatSize(buffer.size)}.
          </p>
          <a href={files.downloadUrl(buffer.path)} data-testid="binary-download">
            Download {nameOf(buffer.path)}
          </a>
        </div>
      );
    case "text":
      if (buffer.comparing && buffer.conflict && !("deleted" in buffer.conflict)) {
        return (
          <CompareView
            path={buffer.path}
            mine={model.text(buffer.path) ?? ""}
            disk={buffer.conflict.disk}
            onView={onMerge}
          />
        );
      }
      return <CodeEditor model={model} />;
  }
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
