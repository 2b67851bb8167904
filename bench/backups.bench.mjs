// Backup and restore of the template workspace (/workspace with its
// node_modules, and /root) through the IDE (tar | zstd in the container,
// streamed to the Durable Object and into R2 in 16 MiB parts with SHA-256;
// a restore backs up the current files first, then streams the object back,
// hashes it and unpacks beside the target, then swaps it in), against the
// bare pipeline in the same container in the same run, alternating:
//   backup:  tar -C / -cf - workspace root | zstd -3 -T0 > /dev/null-ish (wc -c)
//   restore: the same backup to a file (the undo), then zstd -d < file | tar -x into a staging folder.
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { signIn } from "./lib/session.mjs";
import { findContainer } from "./lib/workspace-container.mjs";

export const title = "Backups (template workspace): backup and restore vs bare tar | zstd";

const RUNS = 3;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

const TAR =
  "tar -C / --format=posix --numeric-owner --one-file-system --anchored --exclude=root/.cache --exclude=root/.npm/_cacache -cf - workspace root";

export async function run({ baseUrl }) {
  const session = await signIn(baseUrl);
  const { id } = await session.json("/api/workspaces", { method: "POST", body: { name: "bench backups" } });
  try {
    await session.json(`/api/workspaces/${id}/wake`, { method: "POST" });
    const container = await findContainer(session, id);
    const bash = (script) =>
      execFileSync("docker", ["exec", container, "bash", "-c", script], { encoding: "utf8" }).trim();
    const size = bash("du -sm /workspace /root | awk '{s+=$1} END {print s}'");

    const backup = [];
    const bareBackup = [];
    const restore = [];
    const bareRestore = [];
    let compressed = 0;
    for (let i = 0; i < RUNS; i++) {
      bash(`echo ${i} > /workspace/run.txt`);
      const ours = await timed(() => session.json(`/api/workspaces/${id}/backups`, { method: "POST" }));
      backup.push(ours.ms);
      compressed = ours.value.size;
      const bare = await timed(() => bash(`set -o pipefail; ${TAR} | zstd -q -3 -T0 -c | wc -c`));
      bareBackup.push(bare.ms);

      const back = await timed(() =>
        session.json(`/api/workspaces/${id}/backups/${ours.value.id}/restore`, { method: "POST" }),
      );
      restore.push(back.ms);
      const bareBack = await timed(() =>
        bash(
          `set -e -o pipefail; ${TAR} | zstd -q -3 -T0 -c > /tmp/bench.tar.zst; rm -rf /.bench-stage; mkdir /.bench-stage; zstd -q -d -c /tmp/bench.tar.zst | tar -C /.bench-stage -x --numeric-owner -p -f -; rm -rf /.bench-stage /tmp/bench.tar.zst`,
        ),
      );
      bareRestore.push(bareBack.ms);
    }
    const row = (metric, ours, reference, referenceName) => ({
      metric,
      ours: Math.round(median(ours)),
      reference: Math.round(median(reference)),
      referenceName,
      unit: "ms",
      target: "within 1.5x",
    });
    return [
      {
        metric: `files backed up (MB on disk, ${Math.round(compressed / 1024 / 1024)} MB compressed)`,
        ours: Number(size),
        unit: "MB",
      },
      row("backup, median of 3", backup, bareBackup, "tar | zstd > wc -c"),
      row("restore incl. its undo backup, median of 3", restore, bareRestore, "tar | zstd > file; zstd -d | tar -x"),
    ];
  } finally {
    await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" }).catch(() => {});
  }
}
