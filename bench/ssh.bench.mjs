// SSH through the IDE (OpenSSH's client, ProxyCommand `cloud-ide tunnel`:
// client -> WebSocket -> Worker -> Durable Object -> the container's sshd)
// against Docker's own way into the same container, by turns:
// - `ssh host true` (a new connection each time: tunnel, key exchange, auth)
//   against `docker exec CONTAINER true`;
// - rsync of a 100 MB tree (100 files of 1 MiB, random) into the workspace
//   against `docker cp` of the same tree into the same container.
//
// Every child runs asynchronously: this process also runs the Docker engine
// proxy workerd starts and reaches containers through (scripts/lib/dev-server.mjs),
// so a spawnSync here would stop the IDE from starting sshd for the very ssh
// it waits for.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sshOptions } from "../cli/lib/ssh.mjs";
import { alternate } from "./lib/alternate.mjs";
import { signIn } from "./lib/session.mjs";
import { median } from "./lib/stats.mjs";
import { findContainer } from "./lib/workspace-container.mjs";

export const title = "SSH (ms; ratio = cloud-ide / reference)";

const CLI = new URL("../cli/cloud-ide.mjs", import.meta.url).pathname;
const TRUE_RUNS = 10;
const RSYNC_RUNS = 3;
/** Longer than any run takes: a run that hangs fails the section instead of the whole bench. */
const RUN_LIMIT_MS = 300_000;

/**
 * Runs a command to its end (every holder of its stdout and stderr closed
 * them, as a shell's pipe waits for); resolves with the time taken.
 */
function timed(command, args, env) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const limit = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.at(-1)} still running after ${RUN_LIMIT_MS} ms: ${stderr}`));
    }, RUN_LIMIT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(limit);
      if (code === 0) resolve(performance.now() - start);
      else reject(new Error(`${command} ${args.at(-1)} exited with ${code}: ${stderr}`));
    });
  });
}

/** One argument of rsync's -e command (rsync splits it at spaces, keeping quoted words whole). */
function rshWord(word) {
  if (!word.includes("'")) return `'${word}'`;
  if (!word.includes('"')) return `"${word}"`;
  throw new Error(`cannot pass ${word} through rsync -e`);
}

export async function run({ baseUrl }) {
  const owner = await signIn(baseUrl);
  const id = (await owner.json("/api/workspaces", { method: "POST", body: { name: "ssh bench", template: "empty" } }))
    .id;
  await owner.json(`/api/workspaces/${id}/wake`, { method: "POST" });
  const container = await findContainer(owner, id);
  const token = (await owner.json("/api/tokens", { method: "POST", body: { name: "bench", ttlSeconds: 3600 } })).token;
  const home = mkdtempSync(join(tmpdir(), "cloud-ide-ssh-bench-"));
  const configDir = join(home, ".config/cloud-ide");
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    CLOUD_IDE_URL: baseUrl,
    CLOUD_IDE_TOKEN: token,
  };
  try {
    // First use: the key pair made and registered, sshd started, the host key recorded.
    await timed(process.execPath, [CLI, "ssh", id, "--", "true"], env);
    // The CLI's own options (its key and known_hosts in this HOME), never a prompt, no ~/.ssh/config.
    const options = [
      "-F",
      "/dev/null",
      ...sshOptions(id, join(configDir, "id_ed25519"), { dir: configDir }),
      "-o",
      "BatchMode=yes",
    ];
    const [sshTrue, execTrue] = await alternate(
      TRUE_RUNS,
      () => timed("ssh", [...options, `cloud-ide-${id}`, "true"], env),
      () => timed("docker", ["exec", container, "true"], env),
    );

    const tree = join(home, "tree");
    for (let dir = 0; dir < 10; dir++) {
      mkdirSync(join(tree, `d${dir}`), { recursive: true });
      for (let file = 0; file < 10; file++) writeFileSync(join(tree, `d${dir}`, `f${file}.bin`), randomBytes(1 << 20));
    }
    const rsh = ["ssh", ...options].map(rshWord).join(" ");
    const clear = () => execFileSync("docker", ["exec", container, "rm", "-rf", "/workspace/tree"]);
    const [rsync, dockerCp] = await alternate(
      RSYNC_RUNS,
      () => {
        clear();
        return timed("rsync", ["-a", "-e", rsh, `${tree}/`, `cloud-ide-${id}:/workspace/tree/`], env);
      },
      () => {
        clear();
        return timed("docker", ["cp", tree, `${container}:/workspace/tree`], env);
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
