// Backups of the template workspace (/workspace with its node_modules, and
// /root) and of one with ~200 MB of files, each by turns with its reference in
// the same run:
//   backup:  ours (tar | zstd in the container, streamed to the Durable Object
//            and into R2 in 5 MiB parts with SHA-256) against the bare
//            `tar -C / -cf - workspace root | zstd -3 -T0 | wc -c` in the same container;
//   restore: ours (the current files backed up first, for the undo; then the
//            object streamed back, hashed, unpacked beside the target and
//            swapped in) against the same backup to a file, then
//            `zstd -d < file | tar -x` into a staging folder;
//   R2 alone: the local R2's own part of those two, no container (a test
//            hook): the backup's bytes put in parts, and its object read back;
//            the floor under them on this platform, each by turns with samples
//            of the same references of its own;
//   wake:    from the latest backup (the image changed: a new container from
//            the image, then the backup restored into it) against a wake from
//            the snapshot, the fast path it stands in for.
// The image "changes" between two tags of the same sandbox image (the test
// hook that picks a workspace's image), so the backup path runs exactly as
// after an image update; a file outside /workspace and /root tells which
// path a wake took (a snapshot keeps it, a backup does not).
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { alternate } from "./lib/alternate.mjs";
import { signIn } from "./lib/session.mjs";
import { median } from "./lib/stats.mjs";
import { findContainer } from "./lib/workspace-container.mjs";

export const title =
  "Backups: backup and restore vs bare tar | zstd in the same container; wake from a backup vs from a snapshot";

const RUNS = 3;
const FILL_MB = 200;
/**
 * `BENCH_BACKUPS_WAKES=0` leaves out the wakes (six stops and wakes per
 * workspace, most of the section's time), for a quicker look at backup and restore.
 */
const WAKES = process.env.BENCH_BACKUPS_WAKES !== "0";
/** `BENCH_BACKUPS_ONLY=template` (or `fill`) measures one of the two workspaces. */
const ONLY = process.env.BENCH_BACKUPS_ONLY;

const TAR =
  "tar -C / --format=posix --numeric-owner --one-file-system --anchored --exclude=root/.cache --exclude=root/.npm/_cacache -cf - workspace root";
/** Outside the user's files: a snapshot keeps it, a wake from a backup (the image plus /workspace and /root) does not. */
const SYSTEM_MARKER = "/etc/cloud-ide-bench-snapshot-marker";

async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

const docker = (...args) => execFileSync("docker", args, { encoding: "utf8" }).trim();

export async function run({ baseUrl }) {
  const session = await signIn(baseUrl);
  const cleanup = { tags: [], snapshots: [] };
  try {
    return [
      ...(ONLY === "fill" ? [] : await measure(session, "template workspace", undefined, cleanup)),
      ...(ONLY === "template" ? [] : await measure(session, `~${FILL_MB} MB`, FILL_MB, cleanup)),
    ];
  } finally {
    for (const snapshot of cleanup.snapshots.reverse()) {
      try {
        execFileSync("docker", ["rmi", `workerd-container-snap-${snapshot}`], { stdio: "ignore" });
      } catch {
        // Not a local image (or still in use by a container the server removes).
      }
    }
    for (const tag of cleanup.tags) execFileSync("docker", ["rmi", tag], { stdio: "ignore" });
  }
}

/** One workspace (the template, or `fillMb` of files in an empty one): its rows. */
async function measure(session, label, fillMb, cleanup) {
  const { id } = await session.json("/api/workspaces", {
    method: "POST",
    body: fillMb ? { name: `bench backups ${label}`, template: "empty" } : { name: `bench backups ${label}` },
  });
  try {
    const woken = await session.json(`/api/workspaces/${id}/wake`, { method: "POST" });
    let container = await findContainer(session, id);
    const bash = (script) => docker("exec", container, "bash", "-c", script);
    if (fillMb) {
      // As the lifecycle bench: a real npm install when the registry answers,
      // topped up with incompressible files laid out like packages. A
      // workspace that cannot reach the registry (connections hang, not
      // refused) gives up after a minute instead of npm's own minutes of retries.
      bash(`cd /workspace && npm init -y >/dev/null && (timeout 60 npm install --no-audit --no-fund --loglevel=error typescript@5 >/dev/null 2>&1 || true)
        need=$(( ${fillMb} - $(du -sm /workspace | cut -f1) ))
        node -e 'const fs=require("fs"),c=require("crypto");for(let i=0;i<+process.argv[1]*10;i++){const d="node_modules/fake-"+Math.floor(i/50);fs.mkdirSync(d,{recursive:true});fs.writeFileSync(d+"/f"+i+".bin",c.randomBytes(102400))}' $need`);
    }
    const size = Number(bash("du -sm /workspace /root | awk '{s+=$1} END {print s}'"));

    const bareBackupOnce = async () =>
      (await timed(() => bash(`set -o pipefail; ${TAR} | zstd -q -3 -T0 -c | wc -c`))).ms;
    const bareRestoreOnce = async () =>
      (
        await timed(() =>
          bash(
            `set -e -o pipefail; ${TAR} | zstd -q -3 -T0 -c > /tmp/bench.tar.zst; rm -rf /.bench-stage; mkdir /.bench-stage; zstd -q -d -c /tmp/bench.tar.zst | tar -C /.bench-stage -x --numeric-owner -p -f -; rm -rf /.bench-stage /tmp/bench.tar.zst`,
          ),
        )
      ).ms;

    let latest;
    const [backup, bareBackup] = await alternate(
      RUNS,
      async (i) => {
        bash(`echo ${i} > /workspace/run.txt`);
        const ours = await timed(() => session.json(`/api/workspaces/${id}/backups`, { method: "POST" }));
        latest = ours.value;
        return ours.ms;
      },
      bareBackupOnce,
    );
    const [restore, bareRestore] = await alternate(
      RUNS,
      async () =>
        (await timed(() => session.json(`/api/workspaces/${id}/backups/${latest.id}/restore`, { method: "POST" }))).ms,
      bareRestoreOnce,
    );

    // The local R2's own part, without a container (a test hook): the bytes of
    // the latest backup put in parts as a backup puts them, and its object read
    // and hashed as a restore's staging reads it. Beside the rows above it
    // shows how much of them the storage alone takes on this platform.
    const r2Alone = async (op) => {
      const answer = await session.json(`/api/workspaces/${id}/test-hooks/backups/${latest.id}/r2-alone`, {
        method: "POST",
        body: { op },
      });
      if (answer.size !== latest.size) throw new Error(`r2-alone ${op} moved ${answer.size} of ${latest.size} bytes`);
      return answer.ms;
    };
    // Each by turns with its own samples of the reference, as every other row: measured one after the
    // other, apart from the references above, a moment of load would fall on one side only.
    const [r2Put, bareBackupBesideR2] = await alternate(RUNS, () => r2Alone("put"), bareBackupOnce);
    const [r2GetPut, bareRestoreBesideR2] = await alternate(
      RUNS,
      async () => (await r2Alone("get")) + (await r2Alone("put")),
      bareRestoreOnce,
    );

    /** A wake from the latest backup (the image changed) and one from the snapshot, by turns. */
    async function wakes() {
      // Two names for the same image: waking under the other one is an image change.
      const images = [woken.system?.image ?? woken.image];
      if (!images[0]) throw new Error(`no image in the status: ${JSON.stringify(woken)}`);
      images.push(`cloud-ide-bench-backups-${process.pid}-${cleanup.tags.length}`);
      docker("tag", images[0], images[1]);
      cleanup.tags.push(images[1]);
      let running = images[0];
      /** Stops the workspace (a snapshot, then a backup) and times the wake; `image` changes the image first. */
      const stopThenWake = async (round, image) => {
        bash(`echo wake-${round} > /workspace/run.txt; touch ${SYSTEM_MARKER}`);
        const stopped = await session.json(`/api/workspaces/${id}/stop`, { method: "POST" });
        cleanup.snapshots.push(stopped.snapshotId);
        if (image) {
          const hook = await session.fetch(`/api/workspaces/${id}/test-hooks/lifecycle`, {
            method: "POST",
            body: { image },
          });
          if (!hook.ok) throw new Error(`choosing the image: ${hook.status} ${await hook.text()}`);
        }
        const wake = await timed(() => session.json(`/api/workspaces/${id}/wake`, { method: "POST" }));
        if (wake.value.state !== "running") throw new Error(`did not wake: ${JSON.stringify(wake.value)}`);
        container = await findContainer(session, id);
        const files = bash(`cat /workspace/run.txt; test -e ${SYSTEM_MARKER} && echo system-kept || echo system-new`);
        return { ms: wake.ms, status: wake.value, files };
      };
      return alternate(
        RUNS,
        async (i) => {
          const image = images.find((name) => name !== running);
          const wake = await stopThenWake(i, image);
          running = image;
          if (wake.status.restored?.from !== "backup") {
            throw new Error(`the wake did not use the backup: ${JSON.stringify(wake.status.restored)}`);
          }
          if (wake.files !== `wake-${i}\nsystem-new`) throw new Error(`woken from the backup with: ${wake.files}`);
          return wake.ms;
        },
        async (i) => {
          const wake = await stopThenWake(i);
          if (wake.status.restored?.from === "backup") throw new Error("the wake used the backup, not the snapshot");
          if (wake.files !== `wake-${i}\nsystem-kept`) throw new Error(`woken from the snapshot with: ${wake.files}`);
          return wake.ms;
        },
      );
    }

    const [fromBackup, fromSnapshot] = WAKES ? await wakes() : [[], []];

    const row = (metric, ours, reference, referenceName, target) => ({
      metric: `${label}: ${metric}, median of ${RUNS}`,
      ours: Math.round(median(ours)),
      reference: Math.round(median(reference)),
      referenceName,
      unit: "ms",
      target,
    });
    const rows = [
      {
        metric: `${label}: files backed up (MB on disk, ${Math.round(latest.size / 1024 / 1024)} MB compressed)`,
        ours: size,
        unit: "MB",
      },
      row("backup", backup, bareBackup, "tar | zstd > wc -c", "within 1.5x"),
      row("restore incl. its undo backup", restore, bareRestore, "tar | zstd > file; zstd -d | tar -x", "within 1.5x"),
      row(
        "local R2 alone: the backup's bytes put in parts (no container)",
        r2Put,
        bareBackupBesideR2,
        "tar | zstd > wc -c",
        "none: the floor under the backup row here",
      ),
      row(
        "local R2 alone: the object read, then as many bytes put (a restore's R2 work)",
        r2GetPut,
        bareRestoreBesideR2,
        "tar | zstd > file; zstd -d | tar -x",
        "none: the floor under the restore row here",
      ),
      ...(WAKES
        ? [
            row(
              "wake from the latest backup (POST wake → running)",
              fromBackup,
              fromSnapshot,
              "wake from the snapshot",
              "within 2x",
            ),
          ]
        : []),
    ];
    // Said as soon as they are known: a later failure (the other workspace) must not lose them.
    for (const r of rows) {
      console.log(
        `  ${r.metric}: ${r.ours} ${r.unit}${r.reference === undefined ? "" : ` vs ${r.reference} ${r.unit} (${r.referenceName}), ${(r.ours / r.reference).toFixed(2)}x`}`,
      );
    }
    return rows;
  } finally {
    await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" }).catch(() => {});
  }
}
