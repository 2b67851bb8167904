import type * as lsp from "vscode-languageserver-protocol";
import { pathOfUri } from "../../protocol/language-servers";
import type { FilesApi } from "../api/files";
import type { EditorModel } from "../editor/editor-model";
import { decodeText } from "../editor/languages";
import { applyTextEdits, type LspTextEdit, toEditorEdit } from "./text-edits";

/** The text edits of a WorkspaceEdit, by workspace path (`changes` or `documentChanges`). */
export function editsByPath(edit: lsp.WorkspaceEdit): Map<string, LspTextEdit[]> {
  const byUri = new Map<string, LspTextEdit[]>();
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) byUri.set(uri, [...edits]);
  for (const change of edit.documentChanges ?? []) {
    if (!("textDocument" in change)) {
      throw new Error(`This edit would ${change.kind} a file, which is not supported here.`);
    }
    const edits = change.edits.filter((e): e is lsp.TextEdit => "range" in e && "newText" in e);
    byUri.set(change.textDocument.uri, [...(byUri.get(change.textDocument.uri) ?? []), ...edits]);
  }
  const byPath = new Map<string, LspTextEdit[]>();
  for (const [uri, edits] of byUri) {
    const path = pathOfUri(uri);
    if (path === undefined) throw new Error(`The edit changes ${uri}, outside the workspace.`);
    if (edits.length > 0) byPath.set(path, edits);
  }
  return byPath;
}

/**
 * Applies a WorkspaceEdit (a rename across files) to disk: a file open in the
 * editor gets the edits in its buffer and is saved (the server computed them
 * against that text); any other file is read, edited and written back with
 * If-Match, so a change made meanwhile is not overwritten. Returns the paths
 * changed.
 */
export async function applyWorkspaceEdit(
  edit: lsp.WorkspaceEdit,
  { editor, files }: { editor: EditorModel; files: FilesApi },
): Promise<string[]> {
  const byPath = editsByPath(edit);
  for (const [path, edits] of byPath) {
    if (editor.get(path)?.kind === "text") {
      await editor.applyEdits(path, edits.map(toEditorEdit));
      await editor.save(path);
      const after = editor.get(path);
      if (after?.dirty) throw new Error(`${path} was edited but not saved: ${after.message ?? "it changed on disk"}.`);
      continue;
    }
    const { bytes, etag } = await files.read(path);
    const text = decodeText(bytes);
    if (text === undefined) throw new Error(`${path} is not a text file.`);
    await files.save(path, applyTextEdits(text, edits), etag);
  }
  return [...byPath.keys()];
}
