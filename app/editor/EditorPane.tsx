import type { MergeView } from "@codemirror/merge";
import { EditorState } from "@codemirror/state";
import type { EditorView } from "@codemirror/view";
import { type Ref, useCallback, useEffect, useImperativeHandle, useRef, useState } from "react";
import { ApiRequestError } from "../api";
import type { FileEvents } from "../files/file-events";
import { type FilesApi, nameOf } from "../files/files-api";
import { bufferExtensions, CodeEditor, CompareView } from "./CodeEditor";
import { decodeText, imageTypeFor } from "./languages";
import "./EditorPane.css";

/** Above this a file opens read-only (CodeMirror stays usable, but editing it here is unwise). */
const READ_ONLY_BYTES = 5 * 1024 * 1024;
/** Above this a file is not loaded at all: size and a download link. */
const NO_LOAD_BYTES = 50 * 1024 * 1024;

interface Tab {
  path: string;
  kind: "loading" | "text" | "image" | "binary" | "too-large" | "error";
  size: number;
  /** Disk version the buffer is based on (sent as If-Match). */
  etag: string;
  /** Text last read or saved: the buffer is dirty when it differs. */
  saved: string;
  dirty: boolean;
  readOnly: boolean;
  imageUrl?: string;
  error?: string;
  conflict?: { disk: string; etag: string } | { deleted: true };
  comparing?: boolean;
  saving?: boolean;
  message?: string;
}

export interface EditorHandle {
  open(path: string): void;
  renamed(from: string, to: string): void;
  deleted(path: string): void;
}

/**
 * Tabs of open files over one CodeMirror view. Saves with If-Match; changes
 * on disk reload a clean buffer silently and put a conflict bar over a dirty
 * one (keep mine, take disk, compare).
 */
export function EditorPane({
  api,
  events,
  onActiveChange,
  ref,
}: {
  api: FilesApi;
  events: FileEvents;
  onActiveChange: (path: string | undefined) => void;
  ref?: Ref<EditorHandle>;
}) {
  const [tabs, setTabs] = useState<Tab[]>([]);
  const [active, setActive] = useState<string | undefined>();
  const states = useRef(new Map<string, EditorState>());
  const [, setStateVersion] = useState(0);
  const tabsRef = useRef(tabs);
  tabsRef.current = tabs;
  const viewRef = useRef<EditorView | undefined>(undefined);
  const mergeRef = useRef<MergeView | undefined>(undefined);

  const patch = useCallback((path: string, change: Partial<Tab>) => {
    setTabs((prev) => prev.map((t) => (t.path === path ? { ...t, ...change } : t)));
  }, []);
  const getTab = useCallback((path: string) => tabsRef.current.find((t) => t.path === path), []);

  /** The live state of a buffer: the view's when it is showing, else the stored one. */
  const currentState = useCallback((path: string): EditorState | undefined => {
    const view = viewRef.current;
    if (view && activeRef.current === path && states.current.has(path)) return view.state;
    return states.current.get(path);
  }, []);
  const activeRef = useRef(active);
  activeRef.current = active;

  const makeState = useCallback(
    (path: string, text: string, readOnly: boolean) =>
      EditorState.create({
        doc: text,
        extensions: bufferExtensions(
          path,
          readOnly,
          () => void saveRef.current(path),
          () => {
            const tab = getTab(path);
            const state = currentState(path);
            if (!tab || !state) return;
            const dirty = state.doc.length !== tab.saved.length || state.doc.toString() !== tab.saved;
            if (dirty !== tab.dirty) patch(path, { dirty });
          },
        ),
      }),
    [currentState, patch, getTab],
  );

  const setText = useCallback(
    (path: string, text: string, readOnly: boolean) => {
      states.current.set(path, makeState(path, text, readOnly));
      setStateVersion((v) => v + 1);
    },
    [makeState],
  );

  const load = useCallback(
    async (path: string) => {
      try {
        const info = await api.stat(path);
        if (info.type === "directory") throw new Error(`${path} is a folder.`);
        if (info.size > NO_LOAD_BYTES) {
          return patch(path, { kind: "too-large", size: info.size, etag: info.etag });
        }
        const { bytes, etag } = await api.read(path);
        const image = imageTypeFor(path);
        if (image) {
          const imageUrl = URL.createObjectURL(new Blob([bytes as BlobPart], { type: image }));
          const old = getTab(path)?.imageUrl;
          if (old) URL.revokeObjectURL(old);
          return patch(path, { kind: "image", size: bytes.byteLength, etag, imageUrl });
        }
        const text = decodeText(bytes);
        if (text === undefined) return patch(path, { kind: "binary", size: bytes.byteLength, etag });
        const readOnly = bytes.byteLength > READ_ONLY_BYTES;
        setText(path, text, readOnly);
        patch(path, {
          kind: "text",
          size: bytes.byteLength,
          etag,
          saved: text,
          dirty: false,
          readOnly,
          conflict: undefined,
        });
      } catch (cause) {
        patch(path, { kind: "error", error: (cause as Error).message });
      }
    },
    [api, patch, setText, getTab],
  );

  const open = useCallback(
    (path: string) => {
      setActive(path);
      if (getTab(path)) return;
      setTabs((prev) => [
        ...prev,
        { path, kind: "loading", size: 0, etag: "", saved: "", dirty: false, readOnly: false },
      ]);
      void load(path);
    },
    [load, getTab],
  );

  const save = useCallback(
    async (path: string) => {
      const tab = getTab(path);
      const state = currentState(path);
      if (tab?.kind !== "text" || tab.readOnly || !state || tab.saving) return;
      const text = state.doc.toString();
      patch(path, { saving: true, message: undefined });
      try {
        const info = await api.save(path, text, tab.etag || undefined);
        const now = currentState(path)?.doc.toString() ?? text;
        patch(path, {
          saving: false,
          etag: info.etag,
          saved: text,
          dirty: now !== text,
          conflict: undefined,
          size: info.size,
        });
      } catch (cause) {
        if (cause instanceof ApiRequestError && cause.code === "FILE_CHANGED") {
          patch(path, { saving: false });
          await checkDiskRef.current(path, true);
        } else {
          patch(path, { saving: false, message: `Not saved: ${(cause as Error).message}` });
        }
      }
    },
    [api, currentState, patch, getTab],
  );
  const saveRef = useRef(save);
  saveRef.current = save;

  /** Compares the disk with the buffer after a change event (or a refused save). */
  const checkDisk: (path: string, force?: boolean) => Promise<void> = useCallback(
    async (path: string, force = false) => {
      const tab = getTab(path);
      if (!tab || tab.kind === "loading") return;
      if (tab.saving && !force) return;
      if (tab.kind !== "text") return load(path);
      let disk: { bytes: Uint8Array; etag: string };
      try {
        disk = await api.read(path);
      } catch (cause) {
        if (cause instanceof ApiRequestError && cause.status === 404) {
          patch(path, { conflict: { deleted: true }, dirty: true, etag: "" });
        }
        return;
      }
      const latest = getTab(path);
      if (!latest || (disk.etag === latest.etag && !force)) return;
      const text = decodeText(disk.bytes) ?? "";
      const state = currentState(path);
      const mine = state?.doc.toString() ?? latest.saved;
      if (mine === text) return patch(path, { etag: disk.etag, saved: text, dirty: false, conflict: undefined });
      if (!latest.dirty) {
        // Clean buffer: take the disk version silently, keeping the cursor where it can stay.
        const view = viewRef.current;
        if (view && activeRef.current === path) {
          view.dispatch({
            changes: { from: 0, to: view.state.doc.length, insert: text },
            selection: { anchor: Math.min(view.state.selection.main.head, text.length) },
          });
          states.current.set(path, view.state);
        } else {
          setText(path, text, latest.readOnly);
        }
        return patch(path, { etag: disk.etag, saved: text, dirty: false, conflict: undefined });
      }
      patch(path, { conflict: { disk: text, etag: disk.etag } });
    },
    [api, currentState, load, patch, setText, getTab],
  );

  const checkDiskRef = useRef(checkDisk);
  checkDiskRef.current = checkDisk;

  useEffect(
    () =>
      events.subscribe((event) => {
        const open = tabsRef.current.map((t) => t.path);
        if (event.kind === "resync") {
          for (const path of open) void checkDisk(path);
          return;
        }
        for (const change of event.changes) {
          for (const path of open) {
            if (path === change.path || path === change.from || path.startsWith(`${change.path}/`))
              void checkDisk(path);
          }
        }
      }),
    [events, checkDisk],
  );

  const close = useCallback(
    (path: string) => {
      const tab = getTab(path);
      if (tab?.dirty && !window.confirm(`"${nameOf(path)}" has unsaved changes. Close it and lose them?`)) return;
      if (tab?.imageUrl) URL.revokeObjectURL(tab.imageUrl);
      states.current.delete(path);
      const remaining = tabsRef.current.filter((t) => t.path !== path);
      setTabs(remaining);
      if (activeRef.current === path) setActive(remaining.at(-1)?.path);
    },
    [getTab],
  );

  useImperativeHandle(
    ref,
    () => ({
      open,
      renamed(from, to) {
        setTabs((prev) =>
          prev.map((t) => {
            if (t.path !== from && !t.path.startsWith(`${from}/`)) return t;
            const path = to + t.path.slice(from.length);
            const state = states.current.get(t.path);
            states.current.delete(t.path);
            if (state) states.current.set(path, makeState(path, state.doc.toString(), t.readOnly));
            return { ...t, path };
          }),
        );
        const current = activeRef.current;
        if (current && (current === from || current.startsWith(`${from}/`))) setActive(to + current.slice(from.length));
      },
      deleted(path) {
        for (const tab of tabsRef.current) {
          if (tab.path === path || tab.path.startsWith(`${path}/`)) {
            if (tab.dirty) patch(tab.path, { conflict: { deleted: true }, etag: "" });
            else close(tab.path);
          }
        }
      },
    }),
    [open, close, makeState, patch],
  );

  useEffect(() => onActiveChange(active), [active, onActiveChange]);

  // Leaving the page with unsaved work asks first.
  useEffect(() => {
    const warn = (event: BeforeUnloadEvent) => {
      if (tabsRef.current.some((t) => t.dirty)) event.preventDefault();
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, []);

  const onView = useCallback((view: EditorView | undefined) => {
    // Remember the outgoing state so its edits and undo history survive a tab switch.
    const old = viewRef.current;
    if (old && activeRef.current) states.current.set(activeRef.current, old.state);
    viewRef.current = view;
  }, []);
  const onMerge = useCallback((merge: MergeView | undefined) => {
    mergeRef.current = merge;
  }, []);

  const switchTo = (path: string) => {
    const view = viewRef.current;
    if (view && activeRef.current && states.current.has(activeRef.current)) {
      states.current.set(activeRef.current, view.state);
    }
    setActive(path);
  };

  const tab = tabs.find((t) => t.path === active);
  const resolve = (choice: "mine" | "disk") => {
    if (!tab?.conflict) return;
    if (choice === "disk") {
      if ("deleted" in tab.conflict) return close(tab.path);
      setText(tab.path, tab.conflict.disk, tab.readOnly);
      return patch(tab.path, {
        saved: tab.conflict.disk,
        etag: tab.conflict.etag,
        dirty: false,
        conflict: undefined,
        comparing: false,
      });
    }
    // Keep mine: the buffer stays (edits made in the compare view included) and the next save overwrites the disk.
    if (tab.comparing && mergeRef.current) setText(tab.path, mergeRef.current.a.state.doc.toString(), tab.readOnly);
    patch(tab.path, {
      etag: "deleted" in tab.conflict ? "" : tab.conflict.etag,
      dirty: true,
      conflict: undefined,
      comparing: false,
    });
  };

  const state = active ? states.current.get(active) : undefined;
  return (
    <div className="editor-pane" data-testid="editor">
      {tabs.length === 0 ? (
        <p className="placeholder">Open a file from the tree to edit it.</p>
      ) : (
        <>
          <div className="editor-tabs" role="tablist">
            {tabs.map((t) => (
              <div
                key={t.path}
                role="tab"
                tabIndex={0}
                aria-selected={t.path === active}
                title={t.path}
                data-testid="editor-tab"
                data-path={t.path}
                data-dirty={t.dirty ? "true" : "false"}
                className={`editor-tab${t.path === active ? " active" : ""}`}
                onClick={() => switchTo(t.path)}
                onKeyDown={(e) => e.key === "Enter" && switchTo(t.path)}
                onAuxClick={(e) => e.button === 1 && close(t.path)}
              >
                <span className="editor-tab-name">{nameOf(t.path)}</span>
                {t.dirty && (
                  <span className="editor-tab-dirty" title="Unsaved changes" data-testid="tab-dirty">
                    ●
                  </span>
                )}
                <button
                  type="button"
                  className="editor-tab-close"
                  aria-label={`Close ${nameOf(t.path)}`}
                  onClick={(e) => {
                    e.stopPropagation();
                    close(t.path);
                  }}
                >
                  ×
                </button>
              </div>
            ))}
          </div>
          {tab?.conflict && (
            <div className="editor-conflict" role="alert" data-testid="conflict-bar">
              <span>
                {"deleted" in tab.conflict
                  ? "This file was deleted on disk. Saving will create it again."
                  : "This file changed on disk while you have unsaved changes."}
              </span>
              <button type="button" data-testid="conflict-keep" onClick={() => resolve("mine")}>
                Keep mine
              </button>
              <button type="button" data-testid="conflict-take" onClick={() => resolve("disk")}>
                {"deleted" in tab.conflict ? "Close" : "Take disk version"}
              </button>
              {!("deleted" in tab.conflict) && (
                <button
                  type="button"
                  data-testid="conflict-compare"
                  onClick={() => patch(tab.path, { comparing: !tab.comparing })}
                >
                  {tab.comparing ? "Hide comparison" : "Compare"}
                </button>
              )}
            </div>
          )}
          {tab?.message && (
            <div className="editor-warning" role="alert">
              {tab.message}
            </div>
          )}
          {tab?.kind === "text" && tab.readOnly && (
            <div className="editor-warning" data-testid="read-only-warning">
              This file is {formatSize(tab.size)}: opened read-only to keep the editor responsive.
            </div>
          )}
          <div className="editor-body">
            {tab?.kind === "loading" && <p className="placeholder">Opening {tab.path}…</p>}
            {tab?.kind === "error" && (
              <p className="placeholder">
                Could not open {tab.path}: {tab.error}
              </p>
            )}
            {tab?.kind === "image" && (
              <div className="editor-image" data-testid="image-view">
                <img src={tab.imageUrl} alt={tab.path} />
                <p>
                  {formatSize(tab.size)} · <a href={api.downloadUrl(tab.path)}>Download</a>
                </p>
              </div>
            )}
            {(tab?.kind === "binary" || tab?.kind === "too-large") && (
              <div className="editor-binary" data-testid="binary-view">
                <p>
                  {tab.kind === "binary" ? "A binary file" : "Too large to open here"} of {formatSize(tab.size)}.
                </p>
                <a href={api.downloadUrl(tab.path)} data-testid="binary-download">
                  Download {nameOf(tab.path)}
                </a>
              </div>
            )}
            {tab?.kind === "text" && tab.comparing && tab.conflict && !("deleted" in tab.conflict) && (
              <CompareView
                path={tab.path}
                mine={currentState(tab.path)?.doc.toString() ?? ""}
                disk={tab.conflict.disk}
                onView={onMerge}
              />
            )}
            {tab?.kind === "text" && state && !tab.comparing && <CodeEditor state={state} onView={onView} />}
          </div>
        </>
      )}
    </div>
  );
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
