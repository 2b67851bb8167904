// SSH through the IDE (OpenSSH's client, ProxyCommand `cloud-ide tunnel`:
// client -> WebSocket -> Worker -> Durable Object -> the container's sshd)
// against Docker's own way into the same container, by turns:
// - `ssh host true` (a new connection each time: tunnel, key exchange, auth)
//   against `docker exec CONTAINER true`;
// - rsync of a 100 MB tree (100 files of 1 MiB, random) into the workspace
//   against `docker cp` of the same tree into the same container.
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alternate } from "./lib/alternate.mjs";
import { signIn } from "./lib/session.mjs";
import { median } from "./lib/stats.mjs";
import { findContainer } from "./lib/workspace-container.mjs";

export const title = "SSH (ms; ratio = cloud-ide / reference)";

const CLI = new URL("../cli/cloud-ide.mjs", import.meta.url).pathname;
const TRUE_RUNS = 10;
const RSYNC_RUNS = 3;

export async function run({ baseUrl }) {
  const owner = await signIn(baseUrl);
  const id = (await owner.json("/api/workspaces", { method: "POST", body: { name: "ssh bench", template: "empty" } }))
    .id;
  await owner.json(`/api/workspaces/${id}/wake`, { method: "POST" });
  const container = await findContainer(owner, id);
  const token = (await owner.json("/api/tokens", { method: "POST", body: { name: "bench", ttlSeconds: 3600 } })).token;
  const home = mkdtempSync(join(tmpdir(), "cloud-ide-ssh-bench-"));
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    CLOUD_IDE_URL: baseUrl,
    CLOUD_IDE_TOKEN: token,
  };
  try {
    // First use: the key pair made and registered, sshd started, the host key recorded.
    const first = spawnSync(process.execPath, [CLI, "ssh", id, "--", "true"], { env, encoding: "utf8" });
    if (first.status !== 0) throw new Error(`cloud-ide ssh failed: ${first.stderr}`);
    const options = [
      "-i",
      join(home, ".config/cloud-ide/id_ed25519"),
      "-o",
      "IdentitiesOnly=yes",
      "-o",
      "BatchMode=yes",
      "-o",
      `ProxyCommand=${process.execPath} ${CLI} tunnel ${id}`,
      "-o",
      `HostKeyAlias=cloud-ide-${id}`,
      "-o",
      `UserKnownHostsFile=${join(home, ".config/cloud-ide/known_hosts")}`,
      "-o",
      "User=root",
    ];
    const timed = (command, args) => {
      const start = performance.now();
      const result = spawnSync(command, args, { env, encoding: "utf8", maxBuffer: 16 << 20 });
      if (result.status !== 0) throw new Error(`${command} ${args.at(-1)}: ${result.stderr}`);
      return performance.now() - start;
    };
    const [sshTrue, execTrue] = await alternate(
      TRUE_RUNS,
      () => timed("ssh", [...options, `cloud-ide-${id}`, "true"]),
      () => timed("docker", ["exec", container, "true"]),
    );

    const tree = join(home, "tree");
    for (let dir = 0; dir < 10; dir++) {
      mkdirSync(join(tree, `d${dir}`), { recursive: true });
      for (let file = 0; file < 10; file++) writeFileSync(join(tree, `d${dir}`, `f${file}.bin`), randomBytes(1 << 20));
    }
    const rsh = `ssh ${options.map((o) => `'${o}'`).join(" ")}`;
    const clear = () => execFileSync("docker", ["exec", container, "rm", "-rf", "/workspace/tree"]);
    const [rsync, dockerCp] = await alternate(
      RSYNC_RUNS,
      () => {
        clear();
        return timed("rsync", ["-a", "-e", rsh, `${tree}/`, `cloud-ide-${id}:/workspace/tree/`]);
      },
      () => {
        clear();
        return timed("docker", ["cp", tree, `${container}:/workspace/tree`]);
      },
    );
    return [
      {
        metric: `ssh true, new connection (median of ${TRUE_RUNS})`,
        ours: median(sshTrue),
        reference: median(execTrue),
        referenceName: "docker exec true",
        unit: "ms",
      },
      {
        metric: `rsync 100 MB tree in (median of ${RSYNC_RUNS})`,
        ours: median(rsync),
        reference: median(dockerCp),
        referenceName: "docker cp",
        unit: "ms",
      },
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
    await owner.fetch(`/api/workspaces/${id}`, { method: "DELETE" }).catch(() => {});
  }
}
