// Makes sure a Docker engine answers. On a laptop with Docker Desktop (or any
// running engine) this is one `docker info`. On a fresh Debian machine as root
// with no engine it installs Debian's `docker.io`, writes the daemon config and
// starts `dockerd` in the background.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { detail, probe, run, SetupError, sleep, step } from "./run.mjs";

const DAEMON_CONFIG = "/etc/docker/daemon.json";
const DAEMON_LOG = "/var/log/cloud-ide-dockerd.log";

const engineAnswers = () => probe("docker", ["info", "--format", "{{.ServerVersion}}"], { timeoutMs: 15_000 });
const has = (command) => probe("sh", ["-c", `command -v ${command}`]).ok;
const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

export async function ensureDockerEngine() {
  const first = engineAnswers();
  if (first.ok) {
    detail(`Docker engine ${first.stdout.trim()} answers`);
    return;
  }
  const canManage = isRoot() && has("apt-get");
  if (!has("dockerd")) {
    if (!canManage) {
      throw new SetupError(
        "DOCKER_MISSING",
        "No Docker engine answers and this script can only install one on Debian as root.\n" +
          "Install Docker (Docker Desktop, or your distribution's docker package), start it,\n" +
          "make sure `docker info` works for this user, then run the command again.",
      );
    }
    step("Installing Docker engine (Debian package docker.io)");
    try {
      await run("apt-get", ["update"], { show: false });
      await run("apt-get", ["install", "-y", "--no-install-recommends", "docker.io", "iptables"], {
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      });
    } catch (error) {
      throw new SetupError(
        "DOCKER_INSTALL_FAILED",
        `Installing docker.io failed. Install Docker yourself, start it, and run the command again.\n${error.message}`,
      );
    }
  }
  if (!isRoot()) {
    throw new SetupError(
      "DOCKER_NOT_RUNNING",
      "Docker is installed but its engine does not answer. Start it (Docker Desktop, or\n" +
        "`sudo systemctl start docker`), make sure `docker info` works, and run the command again.",
    );
  }
  writeDaemonConfig();
  step("Starting dockerd");
  const log = openSync(DAEMON_LOG, "a");
  const daemon = spawn("dockerd", [], { detached: true, stdio: ["ignore", log, log] });
  daemon.unref();
  for (let i = 0; i < 60; i++) {
    if (engineAnswers().ok) {
      detail(`dockerd is up (log: ${DAEMON_LOG})`);
      return;
    }
    await sleep(1000);
  }
  const tail = existsSync(DAEMON_LOG) ? readFileSync(DAEMON_LOG, "utf8").split("\n").slice(-15).join("\n") : "";
  throw new SetupError("DOCKER_START_FAILED", `dockerd did not answer within 60 s. Its log ends:\n${tail}`);
}

// Docker 20.10 leaves the bridge gateway out of `GET /networks/bridge` unless
// the bridge IP is configured explicitly, and workerd needs that gateway.
function writeDaemonConfig() {
  let config = {};
  if (existsSync(DAEMON_CONFIG)) {
    try {
      config = JSON.parse(readFileSync(DAEMON_CONFIG, "utf8"));
    } catch {
      throw new SetupError("DOCKER_CONFIG_INVALID", `${DAEMON_CONFIG} is not valid JSON; fix or remove it.`);
    }
  }
  if (config.bip) return;
  config.bip = "172.17.0.1/16";
  mkdirSync("/etc/docker", { recursive: true });
  writeFileSync(DAEMON_CONFIG, `${JSON.stringify(config, null, 2)}\n`);
  detail(`wrote ${DAEMON_CONFIG}`);
}
