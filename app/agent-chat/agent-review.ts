import { unifiedMergeView } from "@codemirror/merge";
import type { Extension } from "@codemirror/state";
import { showPanel } from "@codemirror/view";
import type { AgentChatApi } from "../api/agent-chat";
import type { EditorModel } from "../editor/editor-model";

/**
 * The agent's changes to files, shown in the editor as a diff against what
 * the file was before (a unified diff: what it removed in red above what it
 * wrote), with Accept and Reject on each part, and a bar that ends the
 * review. Rejecting a part puts the old text back in the buffer, which the
 * person then saves. A file the agent changes again while under review keeps
 * the first "before", so the diff is everything the agent changed.
 */
export class AgentReview {
  private readonly reviews = new Map<string, Extension>();
  private readonly remove: () => void;

  constructor(
    private readonly editor: EditorModel,
    private readonly api: AgentChatApi,
  ) {
    this.remove = editor.addExtensions((path) => this.reviews.get(path) ?? []);
  }

  /** The agent's call `toolCallId` changed `path`: open it with its change as a diff (or as it is, if none is kept). */
  async show(path: string, toolCallId: string): Promise<void> {
    const change = await this.api.change(toolCallId).catch(() => undefined);
    const shown = change?.path ?? path;
    if (change && !this.reviews.has(shown)) this.start(shown, change.before);
    await this.editor.open(shown);
  }

  /** Shows `path` as a diff against `before`. */
  start(path: string, before: string): void {
    // One extension per review: asked again (another provider changed), the same one keeps its accepted parts.
    this.reviews.set(path, [
      unifiedMergeView({ original: before, mergeControls: true, gutter: true }),
      showPanel.of(() => ({ dom: this.bar(path), top: true })),
    ]);
    this.editor.refreshExtensions();
  }

  /** Back to the plain editor (the buffer keeps what was accepted and rejected). */
  end(path: string): void {
    if (!this.reviews.delete(path)) return;
    this.editor.refreshExtensions();
  }

  dispose(): void {
    this.reviews.clear();
    this.remove();
  }

  private bar(path: string): HTMLElement {
    const dom = document.createElement("div");
    dom.className = "agent-review-bar";
    dom.dataset.testid = "agent-review";
    const text = document.createElement("span");
    text.textContent = "The agent's change: accept or reject each part, then save.";
    const done = document.createElement("button");
    done.type = "button";
    done.textContent = "Done";
    done.dataset.testid = "agent-review-done";
    done.onclick = () => this.end(path);
    dom.append(text, done);
    return dom;
  }
}
