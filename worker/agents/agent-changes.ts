/**
 * What a file was before the agent panel's agent wrote or edited it, so the
 * page can open the file with the agent's change as a diff (the person then
 * accepts or rejects each part in the editor). Taken just before the tool
 * runs, kept once it ran, per person: the last MAX_KEPT, in the Durable
 * Object's storage, so a diff is still there to review after the object was
 * evicted or the workspace slept (as the conversation is).
 */
import { type AgentFileChange, FILE_WRITING_TOOLS, MAX_BEFORE_CHARS } from "../../protocol/agent-chat";
import { ErrorCode } from "../../protocol/errors";
import { AppError, describe } from "../errors";
import type { WorkspaceFiles } from "../files/workspace-files";

/** Changes kept per person. */
export const MAX_KEPT = 20;

interface Taken extends AgentFileChange {
  user: string;
}

/** The storage calls AgentChanges makes (a Durable Object's storage has them). */
export interface ChangeStorage {
  get<T>(key: string): Promise<T | undefined>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string[]): Promise<number>;
}

/** A call's change, by person too: a model's call ids are unique only within a conversation. */
const changeKey = (user: string, toolCallId: string) => `agent-change:${JSON.stringify([user, toolCallId])}`;
/** A person's kept calls, oldest first. */
const indexKey = (user: string) => `agent-changes-of:${user}`;

export class AgentChanges {
  /** Taken before a tool ran, by person and call (for the moment it runs, so in memory). */
  private readonly taken = new Map<string, Taken>();
  /** The storage steps so far, in order. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly storage: ChangeStorage) {}

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
      this.taken.set(changeKey(user, toolCallId), { user, toolCallId, path, before: text, created: false });
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.FILE_NOT_FOUND) {
        this.taken.set(changeKey(user, toolCallId), { user, toolCallId, path, before: "", created: true });
      }
      // Binary, too large or unreadable: no diff; the tool answers for itself.
    }
  }

  /** The tool ran (`ok`) or failed: its change is kept, or forgotten. */
  ran(user: string, toolCallId: string, ok: boolean): Promise<void> {
    const key = changeKey(user, toolCallId);
    const taken = this.taken.get(key);
    this.taken.delete(key);
    if (!taken || !ok) return this.queue;
    return this.inTurn(async () => {
      const index = (await this.storage.get<string[]>(indexKey(user))) ?? [];
      const kept = [...index.filter((id) => id !== toolCallId), toolCallId];
      const dropped = kept.splice(0, Math.max(0, kept.length - MAX_KEPT));
      await this.storage.put({ [key]: taken, [indexKey(user)]: kept });
      if (dropped.length > 0) await this.storage.delete(dropped.map((id) => changeKey(user, id)));
    });
  }

  async get(user: string, toolCallId: string): Promise<AgentFileChange> {
    await this.queue;
    const change = await this.storage.get<Taken>(changeKey(user, toolCallId));
    if (!change) {
      throw new AppError(
        ErrorCode.NOT_FOUND,
        `No change of the agent's is kept as ${toolCallId.slice(0, 100)}: the last ${MAX_KEPT} are. Open the file to see it as it is.`,
      );
    }
    const { user: _user, ...shown } = change;
    return shown;
  }

  /** Forgets a person's changes (their conversation was cleared). */
  clear(user: string): Promise<void> {
    return this.inTurn(async () => {
      const index = (await this.storage.get<string[]>(indexKey(user))) ?? [];
      await this.storage.delete([...index.map((id) => changeKey(user, id)), indexKey(user)]);
    });
  }

  /**
   * Runs the storage steps of one change after those of the last: two tools
   * of one turn end together, and each reads the person's list, then writes it.
   */
  private inTurn(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step);
    this.queue = next.catch((error) => console.error(`agent changes: ${describe(error)}`));
    return next;
  }
}
