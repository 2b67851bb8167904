/**
 * What a file was before the agent panel's agent wrote or edited it, so the
 * page can open the file with the agent's change as a diff (the person then
 * accepts or rejects each part in the editor). Taken just before the tool
 * runs, kept once it ran, per person: the last MAX_KEPT, in memory (a diff
 * to review is for now; the conversation itself is what is kept for good).
 */
import { type AgentFileChange, FILE_WRITING_TOOLS } from "../../protocol/agent-chat";
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import type { WorkspaceFiles } from "./file-tools";

/** Changes kept per person. */
export const MAX_KEPT = 20;
/** A file longer than this before the change gets no diff (it opens as it is). */
export const MAX_BEFORE_CHARS = 1_000_000;

interface Taken extends AgentFileChange {
  user: string;
}

export class AgentChanges {
  /** Taken before a tool ran, by call; kept once it ran. */
  private readonly taken = new Map<string, Taken>();
  private readonly kept = new Map<string, Taken>();

  /** Reads the file a writer is about to change (nothing for other tools, or a file that cannot be shown). */
  async before(
    user: string,
    toolName: string,
    toolCallId: string,
    args: Record<string, unknown>,
    files: WorkspaceFiles,
  ) {
    if (!FILE_WRITING_TOOLS.has(toolName) || typeof args.path !== "string") return;
    let path: string;
    try {
      path = files.checkPath(args.path);
    } catch {
      return; // The tool refuses the path itself.
    }
    try {
      const { text } = await files.shared(() => files.readText(path));
      if (text.length > MAX_BEFORE_CHARS) return;
      this.taken.set(toolCallId, { user, toolCallId, path, before: text, created: false });
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.FILE_NOT_FOUND) {
        this.taken.set(toolCallId, { user, toolCallId, path, before: "", created: true });
      }
      // Binary, too large or unreadable: no diff; the tool answers for itself.
    }
  }

  /** The tool ran (`ok`) or failed: its change is kept, or forgotten. */
  ran(toolCallId: string, ok: boolean): void {
    const taken = this.taken.get(toolCallId);
    this.taken.delete(toolCallId);
    if (!taken || !ok) return;
    this.kept.set(toolCallId, taken);
    const mine = [...this.kept.values()].filter((change) => change.user === taken.user);
    for (const old of mine.slice(0, Math.max(0, mine.length - MAX_KEPT))) this.kept.delete(old.toolCallId);
  }

  get(user: string, toolCallId: string): AgentFileChange {
    const change = this.kept.get(toolCallId);
    if (!change || change.user !== user) {
      throw new AppError(
        ErrorCode.NOT_FOUND,
        `No change of the agent's is kept as ${toolCallId.slice(0, 100)}: the last ${MAX_KEPT} are, until the workspace restarts. Open the file to see it as it is.`,
      );
    }
    const { user: _user, ...shown } = change;
    return shown;
  }

  /** Forgets a person's changes (their conversation was cleared). */
  clear(user: string): void {
    for (const [id, change] of this.kept) if (change.user === user) this.kept.delete(id);
  }
}
