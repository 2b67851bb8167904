import { afterAll, describe, expect, it } from "vitest";
import { journal, kill, peek, removeWhatWeMade, save, sh, testHooks, waitFor, wake } from "../support/lifecycle";
import { createWorkspace } from "../support/session";
import { marker, openTerminalSocket, type TerminalSocket } from "../support/terminal-client";

/**
 * What programs write survives a killed container (issue 45: "everything
 * else loses at most 30 seconds"). Every pass (30 s; 2 s here) journals the
 * files changed under /workspace since the last one, and the watcher's moves
 * and deletions; a start replays them over the snapshot. A pass that finds
 * more than its limits takes a checkpoint instead.
 */

/** Types a command line in the terminal and waits until it has run. */
async function run(term: TerminalSocket, command: string): Promise<string> {
  const done = marker();
  term.type(`${command}; ${done.command}\r`);
  return term.waitFor(done.pattern);
}

afterAll(removeWhatWeMade);

describe("changes made outside the IDE", () => {
  it("a git commit, a file written, a folder moved and a file deleted in a terminal come back after a kill; the terminal works again", async () => {
    const id = await createWorkspace("outside writes", "empty");
    await testHooks(id, { overrides: { outsideWritesMs: 2_000 } });
    const first = await wake(id);
    const term = await openTerminalSocket(id, "main");
    await run(
      term,
      "cd /workspace && git init -q && git config user.email t@example.com && git config user.name T && " +
        "mkdir old && echo one > old/a.txt && echo doomed > doomed.txt && echo v1 > notes.txt && " +
        "git add -A && git commit -qm first",
    );
    const saved = await save(id);

    // After the snapshot, all from the terminal: a commit, a new file, a folder moved, a file deleted, output flowing.
    await run(
      term,
      "echo v2 > notes.txt && git commit -qam second && echo new > new.txt && mv old moved && rm doomed.txt && seq 1 20000 | tail -n 1",
    );
    const head = sh(first.container, "git -C /workspace rev-parse HEAD");
    const status = sh(first.container, "git -C /workspace status --porcelain");
    // (sh trims the first line's leading space.)
    expect(status).toBe("D doomed.txt\n D old/a.txt\n?? moved/\n?? new.txt");
    // Within a pass (2 s here, 30 s by default) the journal holds all of it.
    let last: unknown;
    const noted = await waitFor(
      "a pass to journal the terminal's changes",
      async () => {
        const { ops, objects } = await journal(id);
        const has = (kind: string, path: string) => ops.some((op) => op.kind === kind && op.path === path);
        const done =
          has("write", "/workspace/new.txt") &&
          has("write", "/workspace/notes.txt") &&
          has("rename", "/workspace/old") &&
          has("delete", "/workspace/doomed.txt") &&
          ops.some((op) => op.path.startsWith("/workspace/.git/refs/heads/"));
        last = ops;
        return done ? { ops, objects } : undefined;
      },
      30_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the journal holds ${JSON.stringify(last)}`);
    });
    // What a commit and three changes cost: one R2 object per file written (the git objects, refs, index, logs).
    const writes = noted.ops.filter((op) => op.kind === "write");
    expect(noted.objects).toHaveLength(writes.length);
    console.log(`outside writes: a commit, a write, a move and a deletion took ${writes.length} R2 PUTs`);

    kill(first.container);
    expect((await term.closed).code).toBe(1011);
    const again = await wake(id);
    expect(again.status.restored).toMatchObject({ from: "snapshot", savedAt: saved.savedAt });
    expect(sh(again.container, "git -C /workspace rev-parse HEAD")).toBe(head);
    expect(sh(again.container, "git -C /workspace log --format=%s")).toBe("second\nfirst");
    // The same working tree as git saw it before the kill: the deletions, the move and the new file.
    expect(sh(again.container, "git -C /workspace status --porcelain")).toBe(status);
    // Every object is whole: the repository checks clean.
    expect(sh(again.container, "cd /workspace && git fsck --strict 2>&1 && echo fsck-ok")).toContain("fsck-ok");
    expect(sh(again.container, "cd /workspace && cat notes.txt new.txt moved/a.txt && ls")).toBe(
      "v2\nnew\none\nmoved\nnew.txt\nnotes.txt",
    );
    // No temporary file of the replay is left.
    expect(sh(again.container, "find /workspace -name '.*.save-*' | wc -l")).toBe("0");

    // The page's automatic reconnect finds the new container, and the terminal answers.
    const reconnected = await openTerminalSocket(id, "main", { wake: false });
    const screen = await run(reconnected, "cat /workspace/new.txt | tr a-z A-Z");
    expect(screen.split("\n")).toContain("NEW");
    reconnected.ws.close();
  });

  it("a pass that finds more than its limits (300 files) takes a checkpoint instead, which keeps them all", async () => {
    const id = await createWorkspace("outside writes past the limits", "empty");
    await testHooks(id, { overrides: { outsideWritesMs: 2_000 } });
    const first = await wake(id);
    const saved = await save(id);
    sh(
      first.container,
      "mkdir -p /workspace/many && cd /workspace/many && for i in $(seq 1 300); do echo $i > f$i; done",
    );
    // The pass saves the workspace rather than putting 300 objects in R2.
    const checkpoint = await waitFor(
      "a checkpoint",
      async () => {
        const { lastSavedAt } = await peek(id);
        return lastSavedAt && lastSavedAt !== saved.savedAt ? lastSavedAt : undefined;
      },
      60_000,
    );
    expect((await journal(id)).ops.filter((op) => op.path.startsWith("/workspace/many/"))).toEqual([]);

    kill(first.container);
    const again = await wake(id);
    expect(again.status.restored).toMatchObject({ from: "snapshot", savedAt: checkpoint });
    expect(sh(again.container, "ls /workspace/many | wc -l; cat /workspace/many/f300")).toBe("300\n300");
  });
});
