/**
 * Completion from the language server, with documentation: like
 * lsp-client's own source (its snippet and edit handling), plus each item's
 * documentation, which servers such as TypeScript's send only when asked for
 * one item (`completionItem/resolve`), shown beside the list.
 */
import {
  autocompletion,
  type Completion,
  type CompletionContext,
  type CompletionResult,
  insertCompletionText,
  snippet,
} from "@codemirror/autocomplete";
import { LSPPlugin } from "@codemirror/lsp-client";
import type { Extension } from "@codemirror/state";
import type { EditorView } from "@codemirror/view";
import type * as lsp from "vscode-languageserver-protocol";

const KIND_TYPE: Record<number, string> = {
  2: "method",
  3: "function",
  4: "class",
  5: "property",
  6: "variable",
  7: "class",
  8: "interface",
  9: "namespace",
  10: "property",
  13: "enum",
  14: "keyword",
  20: "enum",
  21: "constant",
  22: "class",
  25: "type",
};

export function documentedCompletion(): Extension {
  return autocompletion({ override: [completionSource] });
}

async function completionSource(context: CompletionContext): Promise<CompletionResult | null> {
  const plugin = context.view && LSPPlugin.get(context.view);
  if (!plugin || plugin.client.serverCapabilities?.completionProvider === undefined) return null;
  const before = context.state.sliceDoc(context.pos - 1, context.pos);
  const triggers = plugin.client.serverCapabilities.completionProvider.triggerCharacters ?? [];
  const trigger = triggers.includes(before);
  const word = context.matchBefore(/[\w$]+$/);
  if (!context.explicit && !trigger && !word) return null;
  plugin.client.sync();
  const params: lsp.CompletionParams = {
    textDocument: { uri: plugin.uri },
    position: plugin.toPosition(context.pos),
    context: trigger ? { triggerKind: 2, triggerCharacter: before } : { triggerKind: 1 },
  };
  context.addEventListener("abort", () => plugin.client.cancelRequest(params));
  let answer: lsp.CompletionList | lsp.CompletionItem[] | null;
  try {
    answer = await plugin.client.request<lsp.CompletionParams, lsp.CompletionList | lsp.CompletionItem[] | null>(
      "textDocument/completion",
      params,
    );
  } catch (error) {
    if ((error as { code?: number }).code === -32800) return null;
    throw error;
  }
  if (!answer) return null;
  const list = Array.isArray(answer) ? { items: answer, isIncomplete: false } : answer;
  const from = word ? word.from : context.pos;
  const resolves = plugin.client.serverCapabilities?.completionProvider?.resolveProvider === true;
  return {
    from,
    options: list.items.map((item) => option(plugin, item, resolves, list.itemDefaults?.insertTextFormat)),
    validFor: list.isIncomplete ? undefined : /^[\w$]*$/,
  };
}

function option(plugin: LSPPlugin, item: lsp.CompletionItem, resolves: boolean, defaultFormat?: number): Completion {
  const text = item.textEdit?.newText ?? item.insertText ?? item.label;
  const result: Completion = {
    label: item.filterText ?? item.label,
    displayLabel: item.label,
    type: item.kind ? KIND_TYPE[item.kind] : undefined,
    detail: item.detail,
    boost: item.preselect ? 1 : undefined,
  };
  if ((item.insertTextFormat ?? defaultFormat) === 2) {
    result.apply = (view, completion, from, to) => snippet(lspToSnippet(text))(view, completion, from, to);
  } else if (item.additionalTextEdits?.length) {
    result.apply = (view, _completion, from, to) => applyWithEdits(view, plugin, text, from, to, item);
  } else if (text !== result.label) {
    result.apply = text;
  }
  if (item.documentation || resolves) {
    result.info = async () => {
      let documentation = item.documentation;
      let detail = item.detail;
      if (!documentation && resolves) {
        const resolved = await plugin.client
          .request<lsp.CompletionItem, lsp.CompletionItem>("completionItem/resolve", item)
          .catch(() => null);
        documentation = resolved?.documentation;
        detail = resolved?.detail ?? detail;
      }
      if (!documentation && !detail) return null;
      const element = document.createElement("div");
      element.className = "cm-lsp-documentation cm-lsp-completion-documentation";
      const markdown = [detail ? `\`\`\`\n${detail}\n\`\`\`` : "", docText(documentation)].filter(Boolean).join("\n\n");
      element.innerHTML = plugin.docToHTML({ kind: "markdown", value: markdown });
      return element;
    };
  }
  return result;
}

/** LSP snippets to CodeMirror's: `$1` becomes `${1}`; `\$`, `\}` and `\\` lose their backslash. */
function lspToSnippet(text: string): string {
  return text.replace(/\\([$}\\])|\$(\d+)/g, (_match, escaped, field) => escaped || `\${${field}}`);
}

function docText(documentation: string | lsp.MarkupContent | undefined): string {
  if (!documentation) return "";
  return typeof documentation === "string" ? documentation : documentation.value;
}

/** Inserts the completion and the item's other edits (an auto-import at the top). */
function applyWithEdits(
  view: EditorView,
  plugin: LSPPlugin,
  text: string,
  from: number,
  to: number,
  item: lsp.CompletionItem,
): void {
  const doc = view.state.doc;
  const changes = (item.additionalTextEdits ?? []).map((edit) => ({
    from: plugin.fromPosition(edit.range.start, doc),
    to: plugin.fromPosition(edit.range.end, doc),
    insert: edit.newText,
  }));
  view.dispatch(insertCompletionText(view.state, text, from, to), { changes });
}
