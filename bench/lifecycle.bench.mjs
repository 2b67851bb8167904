// Time to save and time to wake a workspace with about 200 MB of files
// (node_modules included), against the raw Docker operations underneath on
// the same container in the same run, by turns (the first of each pair
// switching, bench/lib/alternate.mjs): `docker commit` for a save,
// and `docker run` of the committed image (plus the same `uname -a`, its
// container removed after the timing) for a wake.
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { alternate } from "./lib/alternate.mjs";
import { signIn } from "./lib/session.mjs";
import { median } from "./lib/stats.mjs";

export const title = "Workspace lifecycle (save, wake) with ~200 MB of files";

const RUNS = 3;
const MB = 200;

const docker = (...args) => execFileSync("docker", args, { encoding: "utf8" }).trim();

/**
 * The container behind a status. `uname -a` names the host, which is the
 * short id of the network sidecar whose namespace the app container shares
 * (`<app>-proxy`), so the app container is that name without `-proxy`.
 */
function containerOf(status) {
  const host = status.kernel?.split(" ")[1];
  if (!host) throw new Error(`no kernel line in ${JSON.stringify(status)}`);
  const name = docker("inspect", "--format", "{{.Name}}", host).replace(/^\//, "");
  return docker("inspect", "--format", "{{.Id}}", name.replace(/-proxy$/, ""));
}

async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

export async function run({ baseUrl }) {
  const session = await signIn(baseUrl);
  const { id } = await session.json("/api/workspaces", { method: "POST", body: { name: "bench lifecycle" } });
  const snapshots = [];
  const images = [];
  try {
    const first = await session.json(`/api/workspaces/${id}/wake`, { method: "POST" });
    let container = containerOf(first);
    // ~200 MB under /workspace: a real npm install when the registry answers,
    // topped up with incompressible files laid out like packages.
    docker(
      "exec",
      container,
      "sh",
      "-c",
      `cd /workspace && npm init -y >/dev/null && (npm install --no-audit --no-fund --loglevel=error typescript@5 >/dev/null 2>&1 || true)
       need=$(( ${MB} - $(du -sm /workspace | cut -f1) ))
       node -e 'const fs=require("fs"),c=require("crypto");for(let i=0;i<+process.argv[1]*10;i++){const d="node_modules/fake-"+Math.floor(i/50);fs.mkdirSync(d,{recursive:true});fs.writeFileSync(d+"/f"+i+".bin",c.randomBytes(102400))}' $need`,
    );
    const size = Number(docker("exec", container, "sh", "-c", "du -sm /workspace | cut -f1"));

    // By turns (bench/lib/alternate.mjs): the first of each pair switches, so neither side always meets the
    // page cache or the engine as the other left it.
    const [save, commit] = await alternate(
      RUNS,
      async (i) => {
        docker("exec", container, "sh", "-c", `echo ${i} > /workspace/run.txt`);
        const ours = await timed(() => session.json(`/api/workspaces/${id}/save`, { method: "POST" }));
        snapshots.push(ours.value.snapshotId);
        return ours.ms;
      },
      async (i) => {
        const tag = `cloud-ide-bench-lifecycle-${process.pid}-${i}`;
        const ref = await timed(() => docker("commit", container, tag));
        images.push(tag);
        return ref.ms;
      },
    );

    const [wake, dockerRun] = await alternate(
      RUNS,
      async () => {
        const stopped = await session.json(`/api/workspaces/${id}/stop`, { method: "POST" });
        snapshots.push(stopped.snapshotId);
        const ours = await timed(() => session.json(`/api/workspaces/${id}/wake`, { method: "POST" }));
        if (ours.value.state !== "running") throw new Error(`did not wake: ${JSON.stringify(ours.value)}`);
        container = containerOf(ours.value);
        return ours.ms;
      },
      async (i) => {
        // The container is removed after the timing, not inside it (as `--rm` would).
        const name = `cloud-ide-bench-wake-${process.pid}-${i}`;
        try {
          const ref = await timed(() => docker("run", "--name", name, images[images.length - 1], "uname", "-a"));
          return ref.ms;
        } finally {
          execFileSync("docker", ["rm", "-f", name], { stdio: "ignore" });
        }
      },
    );
    const restored = docker("exec", container, "sh", "-c", "cat /workspace/run.txt; du -sm /workspace | cut -f1");
    if (!restored.startsWith(String(RUNS - 1))) throw new Error(`woken workspace lacks its files: ${restored}`);

    return [
      { metric: `workspace size`, ours: size, unit: "MB" },
      {
        metric: "save (POST save → snapshot stored, median)",
        ours: median(save),
        reference: median(commit),
        referenceName: "docker commit",
        unit: "ms",
      },
      {
        metric: "wake from snapshot (GET status → uname -a, median)",
        ours: median(wake),
        reference: median(dockerRun),
        referenceName: "docker run IMAGE uname -a (removed after)",
        unit: "ms",
      },
    ];
  } finally {
    await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" });
    for (const image of images) execFileSync("docker", ["rmi", image], { stdio: "ignore" });
    for (const snapshot of snapshots.reverse()) {
      try {
        execFileSync("docker", ["rmi", `workerd-container-snap-${snapshot}`], { stdio: "ignore" });
      } catch {
        // Not a local image (or still in use by a container the server removes).
      }
    }
  }
}
