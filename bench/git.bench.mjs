// Source control: `GET /git/status` of a repository with 10,000 changed
// files, next to the same `git status` run with `docker exec` in the same
// container in the same run (no Worker, Durable Object or HTTP in between);
// and the time from a commit made in the container (as in the terminal) to
// the `git` event at a client of the watch stream (and to the status and log
// the panel then reads), next to that commit alone.

import { execFile, execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { alternate, percentileName } from "./lib/alternate.mjs";
import { signIn } from "./lib/session.mjs";
import { percentile } from "./lib/stats.mjs";
import { findContainer } from "./lib/workspace-container.mjs";

export const title = "Source control";

const RUNS = 30;
const EVENT_RUNS = 9;

async function timeAsync(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function run({ baseUrl }) {
  const session = await signIn(baseUrl);
  const { id } = await session.json("/api/workspaces", { method: "POST", body: { name: "bench git" } });
  try {
    const container = await findContainer(session, id);
    const exec = (...args) =>
      execFileSync("docker", ["exec", container, ...args], { maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "pipe"] });
    // The template committed, then 10,000 more files committed and all changed.
    exec(
      "sh",
      "-c",
      [
        "cd /workspace",
        "git init -q -b main",
        "git config user.email bench@example.com && git config user.name bench",
        "mkdir many && (cd many && seq 10000 | xargs touch)",
        "git add -A && git commit -qm Initial",
        "(cd many && seq 10000 | xargs -n 500 sh -c 'for f; do echo x > \"$f\"; done' sh)",
      ].join(" && "),
    );
    const rows = [];

    // 1. git status of 10,000 changed files.
    const status = async () => {
      const body = await session.json(`/api/workspaces/${id}/git/status`);
      if (body.changed.length !== 10_000) throw new Error(`status listed ${body.changed.length} changed files`);
    };
    await status();
    const [ours, reference] = await alternate(
      RUNS,
      () => timeAsync(status),
      () => {
        const start = performance.now();
        exec("git", "-C", "/workspace", "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all");
        return performance.now() - start;
      },
    );
    rows.push({
      metric: `git status, 10,000 changed files (${percentileName(95, RUNS)})`,
      ours: percentile(ours, 95),
      reference: percentile(reference, 95),
      referenceName: "docker exec git status --porcelain=v2",
      unit: "ms",
      target: "< 500 ms",
    });
    rows.push({
      metric: "git status, 10,000 changed files (p50)",
      ours: percentile(ours, 50),
      reference: percentile(reference, 50),
      referenceName: "docker exec git status --porcelain=v2",
      unit: "ms",
    });

    // 2. A commit in the container -> the `git` event at a watch client.
    exec("sh", "-c", "cd /workspace && git checkout -q -- . && git commit -q --allow-empty -m warm");
    const controller = new AbortController();
    const response = await session.fetch(`/api/workspaces/${id}/files/watch`, { signal: controller.signal });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let lastChunkAt = performance.now();
    // Read the stream all along, so events are timed when they arrive.
    const pump = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ done: true }));
        if (done) return;
        text += decoder.decode(value, { stream: true });
        lastChunkAt = performance.now();
      }
    })();
    const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    const waitFor = async (needle, from) => {
      const deadline = performance.now() + 30_000;
      while (text.indexOf(needle, from) === -1) {
        if (performance.now() > deadline) throw new Error(`no ${needle} within 30 s`);
        await sleep(1);
      }
    };
    /** Until the stream has been silent for 300 ms: the last commit's events are all in. */
    const quiet = async () => {
      while (performance.now() - lastChunkAt < 300) await sleep(20);
    };
    await waitFor("event: ready", 0);
    const event = [];
    const panel = [];
    const commitAlone = [];
    for (let i = 0; i < EVENT_RUNS; i++) {
      await quiet();
      const from = text.length;
      const start = performance.now();
      const committed = new Promise((resolve, reject) =>
        execFile(
          "docker",
          ["exec", container, "git", "-C", "/workspace", "commit", "-q", "--allow-empty", "-m", `bench ${i}`],
          (error) => (error ? reject(error) : resolve(performance.now() - start)),
        ),
      );
      await waitFor("event: git", from);
      event.push(performance.now() - start);
      // What the panel then reads (after its 80 ms wait for more changes).
      await new Promise((resolve) => setTimeout(resolve, 80));
      const [status, log] = await Promise.all([
        session.json(`/api/workspaces/${id}/git/status?wake=0`),
        session.json(`/api/workspaces/${id}/git/log?limit=20`),
      ]);
      if (!status.repository || log.commits[0]?.subject !== `bench ${i}`) throw new Error("the log lacks the commit");
      panel.push(performance.now() - start);
      commitAlone.push(await committed);
    }
    controller.abort();
    await pump;
    rows.push({
      metric: "commit in the container -> git event at client (median)",
      ours: percentile(event, 50),
      reference: percentile(commitAlone, 50),
      referenceName: "the docker exec git commit alone",
      unit: "ms",
      target: "< 1000 ms",
    });
    rows.push({
      metric: "commit in the container -> status and log as the panel reads them (median)",
      ours: percentile(panel, 50),
      reference: percentile(commitAlone, 50),
      referenceName: "the docker exec git commit alone",
      unit: "ms",
      target: "< 1000 ms",
    });
    return rows;
  } finally {
    await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" }).catch(() => {});
  }
}
