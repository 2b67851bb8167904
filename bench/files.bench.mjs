// Files: listing a 10,000-entry folder, reading and saving 1 MB, and the time
// from `touch` in the container to the change event reaching a client. Each is
// paired with the same operation done directly with `docker exec` into the same
// container in the same run (no Worker, Durable Object or HTTP in between).

import { execFile, execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { alternate } from "./lib/alternate.mjs";
import { signIn } from "./lib/session.mjs";
import { median } from "./lib/stats.mjs";
import { findContainer } from "./lib/workspace-container.mjs";

export const title = "Files";

const RUNS = 9;

function time(fn) {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

async function timeAsync(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function run(options) {
  try {
    return await measure(options);
  } catch (error) {
    throw new Error(`${error.message}${error.cause ? ` (${error.cause.message ?? error.cause})` : ""}`);
  }
}

async function measure({ baseUrl }) {
  const session = await signIn(baseUrl);
  const { id } = await session.json("/api/workspaces", { method: "POST", body: { name: "bench files" } });
  const files = (suffix, path) => `/api/workspaces/${id}/files${suffix}?path=${encodeURIComponent(path)}`;
  try {
    const container = await findContainer(session, id);
    const exec = (...args) => {
      try {
        return execFileSync("docker", ["exec", container, ...args], {
          maxBuffer: 64 << 20,
          stdio: ["ignore", "pipe", "pipe"],
        });
      } catch (error) {
        const state = spawnSync("docker", ["inspect", "-f", "{{json .State}}", container], { encoding: "utf8" }).stdout;
        throw new Error(`docker exec ${args.join(" ")} failed: ${error.stderr} (container: ${state})`);
      }
    };
    exec("sh", "-c", "mkdir -p /workspace/big && cd /workspace/big && seq 10000 | xargs touch");
    exec("sh", "-c", "head -c 1048576 /dev/urandom > /workspace/one-mb.bin");
    const rows = [];

    // 1. List 10,000 entries.
    const [list, listRef] = await alternate(
      RUNS,
      () =>
        timeAsync(async () => {
          const { entries } = await session.json(files("", "big"));
          if (entries.length !== 10_000) throw new Error(`listed ${entries.length}`);
        }),
      () => time(() => exec("ls", "-la", "/workspace/big")),
      // Each lists 10,000 entries on the container's ½ vCPU: neither starts in the quota the other spent.
      { settleMs: 100 },
    );
    rows.push({
      metric: "list 10,000 entries (median)",
      ours: median(list),
      reference: median(listRef),
      referenceName: "docker exec ls -la",
      unit: "ms",
      target: "< 300 ms",
    });

    // 2. Read 1 MB.
    const [read, readRef] = await alternate(
      RUNS,
      () =>
        timeAsync(async () => {
          const response = await session.fetch(files("/content", "one-mb.bin"));
          const bytes = await response.arrayBuffer();
          if (bytes.byteLength !== 1048576) throw new Error(`read ${bytes.byteLength} bytes`);
        }),
      () => time(() => exec("cat", "/workspace/one-mb.bin")),
    );
    rows.push({
      metric: "read 1 MB (median)",
      ours: median(read),
      reference: median(readRef),
      referenceName: "docker exec cat",
      unit: "ms",
      target: "< 200 ms",
    });

    // 3. Save 1 MB with If-Match (the editor's save round trip).
    const body = new Uint8Array(randomBytes(1048576));
    let etag = (await session.fetch(files("/stat", "saved.bin"))).headers.get("etag");
    const [save, saveRef] = await alternate(
      RUNS,
      () =>
        timeAsync(async () => {
          const headers = etag ? { "If-Match": etag } : {};
          const response = await session.fetch(files("/content", "saved.bin"), { method: "PUT", body, headers });
          if (!response.ok) throw new Error(`save: ${response.status} ${await response.text()}`);
          etag = response.headers.get("etag");
        }),
      () =>
        time(() => {
          const out = spawnSync("docker", ["exec", "-i", container, "sh", "-c", "cat > /workspace/saved-ref.bin"], {
            input: body,
          });
          if (out.status !== 0) throw new Error("reference save failed");
        }),
    );
    rows.push({
      metric: "save 1 MB with If-Match (median)",
      ours: median(save),
      reference: median(saveRef),
      referenceName: "docker exec -i sh -c 'cat > f'",
      unit: "ms",
      target: "< 150 ms",
    });

    // 4. touch in the container -> change event at the client.
    const controller = new AbortController();
    const response = await session.fetch(`/api/workspaces/${id}/files/watch`, { signal: controller.signal });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const waitFor = async (needle) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error("watch stream ended");
        text += decoder.decode(value, { stream: true });
      }
    };
    await waitFor("event: ready");
    const event = [];
    const touchRef = [];
    const afterTouch = [];
    for (let i = 0; i < RUNS; i++) {
      const name = `touched-${i}-${randomBytes(3).toString("hex")}`;
      const start = performance.now();
      // Not blocking the event loop, so the event can be read while touch runs. The container prints the
      // file's new mtime, the moment of the touch on the kernel's clock (this machine's), for the event's delay.
      const touched = new Promise((resolve, reject) =>
        execFile(
          "docker",
          ["exec", container, "sh", "-c", `touch /workspace/${name} && stat -c %.9Y /workspace/${name}`],
          (error, stdout) =>
            error ? reject(error) : resolve({ took: performance.now() - start, at: Number(stdout.trim()) * 1000 }),
        ),
      );
      await waitFor(`"path":"${name}"`);
      const seen = performance.timeOrigin + performance.now();
      event.push(performance.now() - start);
      const { took, at } = await touched;
      touchRef.push(took);
      afterTouch.push(seen - at);
    }
    controller.abort();
    rows.push({
      metric: "touch -> change event at client (median)",
      ours: median(event),
      reference: median(touchRef),
      referenceName: "the docker exec touch alone",
      unit: "ms",
      target: "< 500 ms",
    });
    rows.push({
      metric: "touch done -> change event at client (median)",
      ours: median(afterTouch),
      unit: "ms",
      target: "<= 30 ms",
    });
    return rows;
  } finally {
    await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" }).catch(() => {});
  }
}
