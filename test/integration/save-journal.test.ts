import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { filesUrl, putFile, readHash, sha256 } from "../support/files";
import { journal, kill, removeWhatWeMade, save, sh, testHooks, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";

/**
 * Saved means saved (issue 45): a write the IDE acknowledged survives its
 * container killed from outside (`docker kill -s KILL`, as a host failure
 * would), though the last snapshot is older. The save journal in R2 is
 * replayed over the snapshot before the workspace runs again.
 */

const FOUR_MB = 4 * 1024 * 1024;

/** Random bytes: nothing compresses or dedupes them, and a torn file shows in the hash. */
function payload(size = FOUR_MB): Uint8Array<ArrayBuffer> {
  return new Uint8Array(randomBytes(size));
}

afterAll(removeWhatWeMade);

describe("saved means saved", () => {
  it("a 4 MB save, an upload, a move and a delete acknowledged after the last snapshot survive a killed container; a checkpoint empties the journal", async () => {
    const id = await createWorkspace("journal", "empty");
    // The IDE's own journal alone: the passes that journal what programs write are outside-writes.test.ts's.
    await testHooks(id, { overrides: { outsideWritesMs: 3_600_000 } });
    const first = await wake(id);
    expect((await putFile(id, "doomed.txt", "in the snapshot")).status).toBe(200);
    expect((await putFile(id, "old-name.txt", "moved after the snapshot")).status).toBe(200);
    const saved = await save(id);
    // The snapshot holds everything so far: nothing is left in the journal.
    expect(await journal(id)).toEqual({ ops: [], objects: [] });

    const big = payload();
    const put = await putFile(id, "data/big.bin", big);
    expect(put.status).toBe(200);
    await put.body?.cancel();
    const upload = payload(1024 * 1024 + 7);
    const uploaded = await ownerApi(
      filesUrl(id, "/upload", { path: "up/one.bin", upload: "tok12345", offset: "0", final: "1" }),
      { method: "PUT", body: upload },
    );
    expect(uploaded.status).toBe(201);
    const moved = await ownerApi(`/api/workspaces/${id}/files/move`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ from: "old-name.txt", to: "new-name.txt" }),
    });
    expect(moved.status).toBe(200);
    expect((await ownerApi(filesUrl(id, "", { path: "doomed.txt" }), { method: "DELETE" })).status).toBe(204);
    const before = await journal(id);
    expect(before.ops.map((op) => op.kind)).toEqual(["write", "write", "rename", "delete"]);
    expect(before.objects).toHaveLength(2);

    kill(first.container);
    const again = await wake(id);
    const status: WorkspaceStatus = again.status;
    expect(status.restored).toMatchObject({ from: "snapshot", savedAt: saved.savedAt });

    expect(await readHash(id, "data/big.bin")).toEqual({ status: 200, hash: sha256(big), size: FOUR_MB });
    expect(await readHash(id, "up/one.bin")).toMatchObject({ status: 200, hash: sha256(upload) });
    expect(sh(again.container, "cat /workspace/new-name.txt; echo; test -e /workspace/old-name.txt || echo gone")).toBe(
      "moved after the snapshot\ngone",
    );
    expect((await readHash(id, "doomed.txt")).status).toBe(404);
    // No temporary file of the replay is left.
    expect(sh(again.container, "find /workspace -name '.*.save-*' -o -name '.*.upload-*' | wc -l")).toBe("0");

    // A checkpoint holds all of it: the journal's index and its objects in R2 go.
    await save(id);
    expect(await journal(id)).toEqual({ ops: [], objects: [] });
  });

  it("a save in flight when the container is killed leaves the old or the new content, never a torn or empty file", async () => {
    const id = await createWorkspace("journal in flight", "empty");
    // A new container keeps the name (the Durable Object's id): each round kills the current one.
    const { container } = await wake(id);
    await save(id);
    let old = payload();
    expect((await putFile(id, "f.bin", old)).status).toBe(200);
    // Killed at different points of the second save: before, during and after its body reached the container.
    for (const delayMs of [0, 15, 60]) {
      const next = payload();
      const second = putFile(id, "f.bin", next).then(
        async (response) => {
          await response.body?.cancel();
          return response.status;
        },
        () => 0,
      );
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      kill(container);
      const answered = await second;

      // The killed save's own request may already have brought a new container up: wake, whichever way.
      const woke = await ownerApi(`/api/workspaces/${id}/wake`, { method: "POST" });
      expect(((await woke.json()) as WorkspaceStatus).state).toBe("running");
      const after = await readHash(id, "f.bin");
      expect(after.status).toBe(200);
      expect([sha256(old), sha256(next)]).toContain(after.hash);
      // Acknowledged means kept.
      if (answered === 200) expect(after.hash).toBe(sha256(next));
      expect(after.size).toBe(FOUR_MB);
      console.log(
        `killed after ${delayMs} ms: the save answered ${answered}; the file is the ${after.hash === sha256(next) ? "new" : "old"} one`,
      );
      if (after.hash === sha256(next)) old = next;
    }
  });
});
