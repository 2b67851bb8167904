// The save journal's cost (issue 45, "saved means saved"): the editor's save
// (PUT /files/content with If-Match) of 4 KB, 1 MB and 4 MB in one workspace,
// journaled (the body goes to the container and to R2 at once, the answer
// waits for both) against the same save with the journal off for that
// workspace (a test hook), by turns. The hook is switched between samples,
// outside the timing.

import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { alternate } from "./lib/alternate.mjs";
import { signIn } from "./lib/session.mjs";
import { median } from "./lib/stats.mjs";

export const title = "Save journal";

const RUNS = 11;
const SIZES = [
  ["4 KB", 4 * 1024],
  ["1 MB", 1024 * 1024],
  ["4 MB", 4 * 1024 * 1024],
];

export async function run({ baseUrl }) {
  const session = await signIn(baseUrl);
  const { id } = await session.json("/api/workspaces", {
    method: "POST",
    body: { name: "bench journal", template: "empty" },
  });
  const journal = (enabled) =>
    session.json(`/api/workspaces/${id}/test-hooks/journal`, { method: "POST", body: { enabled } });
  try {
    await session.json(`/api/workspaces/${id}/wake`, { method: "POST" });
    const rows = [];
    for (const [name, size] of SIZES) {
      const body = new Uint8Array(randomBytes(size));
      const path = `/api/workspaces/${id}/files/content?path=${encodeURIComponent(`saved-${size}.bin`)}`;
      let etag;
      const save = async (enabled) => {
        await journal(enabled);
        const started = performance.now();
        const headers = etag ? { "If-Match": etag } : {};
        const response = await session.fetch(path, { method: "PUT", body, headers });
        if (!response.ok) throw new Error(`save: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
        etag = response.headers.get("etag");
        return performance.now() - started;
      };
      const [on, off] = await alternate(
        RUNS,
        () => save(true),
        () => save(false),
      );
      rows.push({
        metric: `save ${name} with the journal (median)`,
        ours: median(on),
        reference: median(off),
        referenceName: "the same save, journal off",
        unit: "ms",
        target: "< 1 R2 PUT more",
      });
    }
    const { ops, objects } = await journal(true);
    // One entry per file: a save of the same path replaces the previous entry and its object.
    rows.push({ metric: "journal entries left (3 files saved 11 times each)", ours: ops.length, unit: "entries" });
    rows.push({ metric: "journal objects in R2", ours: objects.length, unit: "objects" });
    return rows;
  } finally {
    await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" }).catch(() => {});
  }
}
