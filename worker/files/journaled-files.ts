import type { AgentClient } from "../resident/agent-client";
import type { Sandbox } from "../sandbox/sandbox";
import { SandboxFileError } from "./sandbox-file-error";
import {
  type FileContent,
  type FileOperationOptions,
  Files,
  type RemoveOptions,
  type SandboxFileStat,
} from "./sandbox-files";
import type { JournalOp, SaveJournal } from "./save-journal";

/**
 * {@link Files} whose acknowledged writes, deletions and renames are also in
 * the save journal (worker/files/save-journal.ts). Every way the IDE
 * writes a file goes through one of these methods (the files API's save,
 * upload, delete and move; co-editing's save; the agents' write_file), so
 * each is journaled here once, not per route.
 *
 * - `saveAtomically`: the body goes to the container and to R2 at once (a
 *   tee); the save answers when both hold it, so the journal costs one R2
 *   PUT of latency, not a second trip.
 * - `commit` (an upload's last chunk): the staged file is read back from the
 *   container into R2, then renamed into place.
 * - `remove`, `rename`: noted once the container did them.
 */
export class JournaledFiles extends Files {
  constructor(
    sandbox: Pick<Sandbox, "exec">,
    config: { confineTo?: string; agent?: AgentClient },
    private readonly journal: SaveJournal,
  ) {
    super(sandbox, config);
  }

  override async saveAtomically(
    temp: string,
    destination: string,
    expectedEtag: string,
    content: FileContent,
    options: FileOperationOptions & { length?: number } = {},
  ): Promise<SandboxFileStat> {
    const { length, ...rest } = options;
    if (!this.journal.enabled) return super.saveAtomically(temp, destination, expectedEtag, content, rest);
    const { stream, size } = asStream(content);
    const [toContainer, toJournal] = stream.tee();
    const staged = this.journal.stage(toJournal, size ?? length);
    let stat: SandboxFileStat;
    try {
      stat = await super.saveAtomically(temp, destination, expectedEtag, toContainer, rest);
    } catch (error) {
      // Not acknowledged: a replay must never write it.
      await staged.done.catch(() => {});
      await this.journal.discard(staged.key);
      throw error;
    }
    const { size: stored, sha256 } = await staged.done;
    await this.journal.recordWrite(destination, staged.key, stored, sha256);
    return stat;
  }

  override async commit(
    temp: string,
    destination: string,
    expectedEtag: string,
    options: FileOperationOptions = {},
  ): Promise<SandboxFileStat> {
    if (!this.journal.enabled) return super.commit(temp, destination, expectedEtag, options);
    // The staged bytes into R2 first: once renamed into place they are acknowledged.
    const { response, stat: staging } = await this.readFileWithStat(temp, options);
    const staged = this.journal.stage(response.body ?? emptyStream(), Number(staging.size));
    const { size, sha256 } = await staged.done;
    let stat: SandboxFileStat;
    try {
      stat = await super.commit(temp, destination, expectedEtag, options);
    } catch (error) {
      await this.journal.discard(staged.key);
      throw error;
    }
    await this.journal.recordWrite(destination, staged.key, size, sha256);
    return stat;
  }

  override async remove(path: string, options: RemoveOptions = {}): Promise<void> {
    await super.remove(path, options);
    await this.journal.recordDelete(path);
  }

  override async rename(source: string, destination: string, options: FileOperationOptions = {}): Promise<void> {
    await super.rename(source, destination, options);
    await this.journal.recordRename(source, destination);
  }

  override async renameNoReplace(
    source: string,
    destination: string,
    options: FileOperationOptions = {},
  ): Promise<void> {
    await super.renameNoReplace(source, destination, options);
    await this.journal.recordRename(source, destination);
  }

  /**
   * Puts back what the journal holds since `since` into a container that
   * started from something saved then. Each write is atomic (a temporary
   * file renamed into place), so a replay cut short leaves no torn file, and
   * a replay that runs again writes the same bytes.
   */
  replayJournal(since: number): Promise<number> {
    return this.journal.replay(since, (op, body) => this.apply(op, body));
  }

  private async apply(op: JournalOp, body?: ReadableStream<Uint8Array>): Promise<void> {
    switch (op.kind) {
      case "write": {
        const parent = op.path.slice(0, op.path.lastIndexOf("/")) || "/";
        await super.mkdir(parent, { recursive: true });
        const name = op.path.slice(op.path.lastIndexOf("/") + 1);
        const temp = `${parent}/.${name}.save-replay${op.seq}`;
        await super.saveAtomically(temp, op.path, "", body ?? "");
        return;
      }
      case "delete":
        await super.remove(op.path, { recursive: true, force: true });
        return;
      case "rename":
        if (!op.to) return;
        try {
          await super.rename(op.path, op.to);
        } catch (error) {
          // Its source was made outside the IDE after the snapshot, and is lost with it.
          if (!(SandboxFileError.is(error) && error.code === "ENOENT")) throw error;
        }
        return;
    }
  }
}

/** `content` as a stream, with its length when it is known without reading it. */
function asStream(content: FileContent): { stream: ReadableStream<Uint8Array>; size?: number } {
  if (content instanceof ReadableStream) return { stream: content };
  if (content instanceof Blob) return { stream: content.stream(), size: content.size };
  const bytes =
    typeof content === "string"
      ? new TextEncoder().encode(content)
      : content instanceof ArrayBuffer
        ? new Uint8Array(content)
        : new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
  return {
    stream: new ReadableStream({
      start(controller) {
        if (bytes.byteLength > 0) controller.enqueue(bytes);
        controller.close();
      },
    }),
    size: bytes.byteLength,
  };
}

/** A body with no bytes (a read that answered none). */
export function emptyStream(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.close() });
}
