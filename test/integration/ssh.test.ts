/**
 * SSH into a workspace through the IDE (issue 46), with Debian's real
 * OpenSSH client, scp and rsync, through `cloud-ide tunnel` as their
 * ProxyCommand and a personal access token: a command and its exit status
 * (and no tunnel process left behind, even when ssh is killed),
 * a PTY and its resize, rsync of 100 MB both ways, scp, ssh -L to a server
 * in the workspace, the browser terminal's tmux, the same host key after a
 * sleep and a wake; and the refusals (no token, an expired or revoked one,
 * a viewer, another user's workspace, an unregistered key, a run of wrong keys).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedToken, SshKeySummary } from "../../protocol/access";
import { api } from "../support/api";
import { removeWhatWeMade, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";
import { CommandLine } from "../support/ssh-client";
import { openTerminalSocket } from "../support/terminal-client";
import { accessUser } from "../support/users";

let id: string;
let person: CommandLine;
/** Made first, with the shortest lifetime, and tried last: expired by then. */
let shortLived: CreatedToken;
const people: CommandLine[] = [];

async function makeToken(name: string, ttlSeconds = 3600, headers?: Record<string, string>): Promise<CreatedToken> {
  const init = {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ name, ttlSeconds }),
  };
  const response = headers ? await api("/api/tokens", init) : await ownerApi("/api/tokens", init);
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as CreatedToken;
}

function newPerson(token: string): CommandLine {
  const made = new CommandLine(token);
  people.push(made);
  return made;
}

beforeAll(async () => {
  shortLived = await makeToken("short", 60);
  id = await createWorkspace("ssh", "empty");
  await wake(id);
  person = newPerson((await makeToken("cli")).token);
}, 300_000);

afterAll(async () => {
  for (const made of people) made.remove();
  await removeWhatWeMade();
});

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** `relative path  sha256` of every file under `root`, sorted: what sha256sum prints in the workspace. */
function treeHashes(root: string): string {
  const lines: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else lines.push(`${sha256(path)}  ./${relative(root, path)}`);
    }
  };
  walk(root);
  return `${lines.sort((a, b) => (a.slice(66) < b.slice(66) ? -1 : 1)).join("\n")}\n`;
}

const REMOTE_HASHES = "cd /workspace/tree && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum";

describe("cloud-ide ssh", () => {
  it("makes and registers a key on first use, runs a command and exits with its status", async () => {
    const ran = await person.cli(["ssh", "ssh", "--", "echo", "hello from $(hostname); exit 7"]);
    expect(ran.stdout, ran.stderr).toContain("hello from");
    expect(ran.code).toBe(7);
    const keys = (await (await ownerApi("/api/ssh-keys")).json()) as SshKeySummary[];
    const own = readFileSync(`${person.key}.pub`, "utf8").split(" ").slice(0, 2).join(" ");
    expect(keys.map((k) => k.publicKey)).toContain(own);
    // The same environment as a terminal: root, /workspace's tools, the CA trust.
    const env = await person.ssh(id, "id -u; echo $NODE_EXTRA_CA_CERTS; command -v node tmux git");
    expect(env.code, env.stderr).toBe(0);
    expect(env.stdout).toMatch(/^0\n\/etc\/cloud-ide\/egress-ca.crt\n.*node\n.*tmux\n.*git\n$/);
  });

  it("exits once the command has, leaving no tunnel process behind", async () => {
    // execFile answers once every holder of the CLI's stdout and stderr closed them: ssh's
    // ProxyCommand (`cloud-ide tunnel`) shares them, so a tunnel that lingered would hang this.
    const started = Date.now();
    const ran = await person.cli(["ssh", id, "--", "true"], { timeoutMs: 60_000 });
    expect(ran.code, ran.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(await tunnelsLeft(person, id)).toEqual([]);
  });

  it("ends the tunnel when ssh is killed mid-session", async () => {
    const session = person.spawnSsh(id, [`cloud-ide-${id}`, "echo started; sleep 300"]);
    await new Promise<void>((resolve) => session.child.stdout.once("data", () => resolve()));
    expect(await tunnelsLeft(person, id, 0)).toHaveLength(1);
    session.child.kill("SIGKILL");
    expect(await tunnelsLeft(person, id)).toEqual([]);
  });

  it("lists workspaces and writes ssh config entries with the token", async () => {
    const listed = await person.cli(["ls"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`${id}\tssh\towner`);
    const config = await person.cli(["ssh-config"]);
    expect(config.stdout).toContain("Host cloud-ide-ssh\n");
    expect(config.stdout).toContain(`tunnel ${id}`);
    const file = join(person.home, "ssh_config");
    writeFileSync(file, config.stdout);
    const viaConfig = await person.run("ssh", ["-F", file, "-o", "BatchMode=yes", "cloud-ide-ssh", "echo ok"]);
    expect(viaConfig.stdout, viaConfig.stderr).toBe("ok\n");
  });

  it("gives an interactive PTY that follows a resize", async () => {
    // Python's pty module: a real terminal for ssh, resized with TIOCSWINSZ (ssh then sends window-change).
    const script = `
import fcntl, os, pty, struct, sys, termios, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp("ssh", ["ssh"] + sys.argv[1:])
def size(rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
size(30, 100)
out = b""
def until(mark, limit=60):
    global out
    end = time.time() + limit
    while mark not in out and time.time() < end:
        try: out += os.read(fd, 65536)
        except OSError: break
    return mark in out
os.write(fd, b"stty size; echo A''A\\n")
until(b"AA")
size(40, 132)
time.sleep(0.5)
os.write(fd, b"stty size; echo B''B\\n")
until(b"BB")
os.write(fd, b"exit\\n")
until(b"\\x00", 5)
sys.stdout.write(out.decode("utf-8", "replace"))
`;
    const ran = await person.run("python3", ["-c", script, ...person.sshOptions(id), "-tt", `cloud-ide-${id}`]);
    expect(ran.stdout).toMatch(/30 100[\s\S]*AA[\s\S]*40 132[\s\S]*BB/);
  });

  it("rsyncs a 100 MB tree both ways with equal hashes", async () => {
    const local = join(person.home, "tree");
    for (let dir = 0; dir < 10; dir++) {
      mkdirSync(join(local, `d${dir}`), { recursive: true });
      for (let file = 0; file < 10; file++) writeFileSync(join(local, `d${dir}`, `f${file}.bin`), randomBytes(1 << 20));
    }
    const rsh = `ssh ${person
      .sshOptions(id)
      .map((o) => `'${o}'`)
      .join(" ")}`;
    const up = await person.run("rsync", ["-a", "-e", rsh, `${local}/`, `cloud-ide-${id}:/workspace/tree/`], {
      timeoutMs: 600_000,
    });
    expect(up.code, up.stderr).toBe(0);
    const remote = await person.ssh(id, REMOTE_HASHES);
    expect(remote.stdout).toBe(treeHashes(local));
    const back = join(person.home, "back");
    const down = await person.run("rsync", ["-a", "-e", rsh, `cloud-ide-${id}:/workspace/tree/`, `${back}/`], {
      timeoutMs: 600_000,
    });
    expect(down.code, down.stderr).toBe(0);
    expect(treeHashes(back)).toBe(treeHashes(local));
  }, 900_000);

  it("copies files with scp both ways", async () => {
    const file = join(person.home, "scp-up.bin");
    writeFileSync(file, randomBytes(3 << 20));
    const options = person.sshOptions(id);
    const up = await person.run("scp", [...options, file, `cloud-ide-${id}:/workspace/scp-up.bin`]);
    expect(up.code, up.stderr).toBe(0);
    const down = await person.run("scp", [
      ...options,
      `cloud-ide-${id}:/workspace/scp-up.bin`,
      join(person.home, "scp-down.bin"),
    ]);
    expect(down.code, down.stderr).toBe(0);
    expect(sha256(join(person.home, "scp-down.bin"))).toBe(sha256(file));
  });

  it("forwards a local port to a dev server in the workspace (ssh -L)", async () => {
    const started = await person.ssh(
      id,
      "mkdir -p /tmp/site && echo served-over-ssh >/tmp/site/index.html && cd /tmp/site && (setsid nohup python3 -m http.server 8765 >/dev/null 2>&1 &) ; sleep 1",
    );
    expect(started.code, started.stderr).toBe(0);
    const port = await freePort();
    const forward = person.spawnSsh(id, [
      "-N",
      "-o",
      "ExitOnForwardFailure=yes",
      "-L",
      `127.0.0.1:${port}:localhost:8765`,
      `cloud-ide-${id}`,
    ]);
    try {
      let body = "";
      for (let i = 0; i < 60 && !body.includes("served-over-ssh"); i++) {
        body = await fetch(`http://127.0.0.1:${port}/`)
          .then((r) => r.text())
          .catch(() => "");
        if (!body) await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(body, forward.stderr()).toContain("served-over-ssh");
    } finally {
      forward.kill();
    }
  });

  it("joins the browser terminal's tmux server", async () => {
    const terminal = await openTerminalSocket(id, "main");
    terminal.type("echo typed-in-the-browser-$((6*7))\r");
    await terminal.waitFor(/typed-in-the-browser-42/);
    const seen = await person.ssh(id, "tmux capture-pane -p -t main");
    expect(seen.stdout, seen.stderr).toContain("typed-in-the-browser-42");
    terminal.ws.close();
  });

  it("keeps the host key across a sleep and a wake", async () => {
    const before = readFileSync(person.knownHosts, "utf8");
    expect(before).toContain("ssh-ed25519");
    const stopped = await ownerApi(`/api/workspaces/${id}/stop`, { method: "POST" });
    expect(stopped.status).toBe(200);
    // Opening the tunnel wakes it; a changed host key would fail StrictHostKeyChecking (given
    // before the options that accept a new one: ssh takes the first value of each).
    const ran = await person.run("ssh", [
      "-o",
      "StrictHostKeyChecking=yes",
      ...person.sshOptions(id),
      `cloud-ide-${id}`,
      "echo awake",
    ]);
    expect(ran.stdout, ran.stderr).toBe("awake\n");
    expect(readFileSync(person.knownHosts, "utf8")).toBe(before);
  }, 300_000);
});

/**
 * The `cloud-ide tunnel ID` processes of `who` (their HOME) still running
 * after up to `graceMs` (a tunnel exits a moment after ssh closes its pipes).
 */
async function tunnelsLeft(who: CommandLine, workspace: string, graceMs = 10_000): Promise<number[]> {
  const find = () =>
    readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number)
      .filter((pid) => {
        try {
          const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
          const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
          return args.includes("tunnel") && args.includes(workspace) && env.includes(`HOME=${who.home}`);
        } catch {
          return false; // Gone meanwhile.
        }
      });
  const deadline = Date.now() + graceMs;
  let left = find();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    left = find();
  }
  return left;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

describe("refusals", () => {
  it("refuses a tunnel without a token, and with a mistyped one", async () => {
    // No token and no cookie. (vite dev drops a refused upgrade unanswered: the same request
    // without the upgrade is refused the same way, before the upgrade is asked for.)
    const bare = await api(`/ws/workspaces/${id}/ssh`);
    expect(bare.status).toBe(401);
    expect(await bare.json()).toMatchObject({ code: "UNAUTHENTICATED" });
    const wrong = newPerson(`${person.token.slice(0, -4)}AAAA`);
    const refused = await wrong.cli(["tunnel", id], { input: "" });
    expect(refused.stderr).toContain("UNAUTHENTICATED");
    // A token is taken for the list, the tunnel and the CLI's key, and nowhere else.
    const other = await api("/api/tokens", { headers: { Authorization: `Bearer ${person.token}` } });
    expect(other.status).toBe(401);
  });

  it("refuses a viewer, and a user with no role there (as if it did not exist)", async () => {
    await setRole("viewer-ssh@example.com", "viewer");
    const viewer = newPerson((await makeToken("viewer", 3600, await accessUser("viewer-ssh@example.com"))).token);
    const asViewer = await viewer.cli(["tunnel", id], { input: "" });
    expect(asViewer.stderr).toContain("FORBIDDEN");
    const stranger = newPerson((await makeToken("stranger", 3600, await accessUser("stranger-ssh@example.com"))).token);
    const asStranger = await stranger.cli(["tunnel", id], { input: "" });
    expect(asStranger.stderr).toContain("NOT_FOUND");
    const elsewhere = await person.cli(["tunnel", "nosuchworkspace0"], { input: "" });
    expect(elsewhere.stderr).toContain("NOT_FOUND");
  });

  it("refuses a key nobody registered", async () => {
    const stranger = newPerson(person.token);
    const made = await stranger.run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(stranger.home, "k")]);
    expect(made.code).toBe(0);
    const ran = await stranger.ssh(id, "true", { key: join(stranger.home, "k") });
    expect(ran.code).toBe(255);
    expect(ran.stderr).toContain("Permission denied (publickey)");
  });

  it("ends a session within seconds when its token is revoked", async () => {
    const token = await makeToken("revoked");
    const revokee = newPerson(token.token);
    const first = await revokee.cli(["ssh", "ssh", "--", "true"]);
    expect(first.code, first.stderr).toBe(0);
    const session = revokee.spawnSsh(id, [`cloud-ide-${id}`, "echo started; sleep 300"]);
    await new Promise<void>((resolve) => session.child.stdout.on("data", () => resolve()));
    const revoked = await ownerApi(`/api/tokens/${token.id}`, { method: "DELETE" });
    expect(revoked.status).toBe(204);
    const code = await Promise.race([
      session.exited,
      new Promise<string>((r) => setTimeout(() => r("still running"), 15_000)),
    ]);
    expect(code).not.toBe("still running");
    expect(code).not.toBe(0);
    session.kill();
    // And its key, registered with it, went with it.
    const keys = (await (await ownerApi("/api/ssh-keys")).json()) as SshKeySummary[];
    const own = readFileSync(`${revokee.key}.pub`, "utf8").split(" ").slice(0, 2).join(" ");
    expect(keys.map((k) => k.publicKey)).not.toContain(own);
  });

  it("refuses an expired token", async () => {
    const wait = Date.parse(shortLived.expiresAt) - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 1000));
    const late = newPerson(shortLived.token);
    const refused = await late.cli(["tunnel", id], { input: "" });
    expect(refused.stderr).toContain("UNAUTHENTICATED");
  }, 120_000);

  it("throttles a run of wrong keys: then even a registered key is refused for a while", async () => {
    const guesser = newPerson(person.token);
    for (let i = 0; i < 20; i++) {
      const key = join(guesser.home, `k${i}`);
      await guesser.run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key]);
      const ran = await guesser.ssh(id, "true", { key });
      expect(ran.code).toBe(255);
    }
    const right = await person.ssh(id, "true");
    expect(right.code).toBe(255);
    expect(right.stderr).toContain("Permission denied (publickey)");
  }, 300_000);
});

describe("the device login's limits (cloud-ide login)", () => {
  const start = (address: string) =>
    api("/api/device", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Test-Client-Address": address },
      body: "{}",
    });

  it("answers 429 with a code and Retry-After past 10 starts from one address in 10 minutes", async () => {
    const address = `198.51.100.${Math.floor(Math.random() * 250)}`;
    for (let i = 0; i < 10; i++) {
      const started = await start(address);
      expect(started.status, await started.clone().text()).toBe(200);
      expect(await started.json()).toMatchObject({ userCode: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/) });
    }
    const refused = await start(address);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: "TOO_MANY_ATTEMPTS" });
    // Another address is not affected.
    expect((await start("192.0.2.46")).status).toBe(200);
  });

  it("stops a person approving codes that match nothing after 10, even a right one then", async () => {
    const approver = await accessUser(`approver-${Math.floor(Math.random() * 1e6)}@example.com`);
    const approve = (userCode: string) =>
      api("/api/device/approve", {
        method: "POST",
        headers: { "Content-Type": "application/json", ...approver },
        body: JSON.stringify({ userCode }),
      });
    const waiting = (await (await start("192.0.2.47")).json()) as { userCode: string; deviceCode: string };
    for (let i = 0; i < 10; i++) {
      const guess = await approve(i % 2 ? "BBBB-BBBB" : `BCDF-${"GHJKLMNPQR"[i]}XZW`);
      expect(guess.status).toBe(410);
      expect(await guess.json()).toMatchObject({ code: "DEVICE_LOGIN_UNUSABLE" });
    }
    const refused = await approve(waiting.userCode);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: "TOO_MANY_ATTEMPTS" });
    // The poll's device code is a secret no one guesses: a wrong one is unusable, not pending.
    const [letters] = waiting.deviceCode.split(".");
    const wrong = await api("/api/device/token", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ deviceCode: `${letters}.${"a".repeat(43)}` }),
    });
    expect(await wrong.json()).toMatchObject({ code: "DEVICE_LOGIN_UNUSABLE" });
  });
});

async function setRole(user: string, role: "viewer" | "editor" | null): Promise<void> {
  const response = await ownerApi(`/api/workspaces/${id}/test-hooks/members`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user, role }),
  });
  expect(response.status).toBe(204);
}
