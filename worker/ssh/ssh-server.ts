/**
 * The workspace's sshd: OpenSSH from the image, started on demand when a
 * tunnel opens (worker/ssh/ssh-tunnel.ts), listening on port 22 of every
 * address (the Worker reaches a container's port from outside it, as
 * previews do). Its configuration is written from here at each start, so a
 * change needs no new image and an old snapshot with openssh-server gets it.
 *
 * - Keys only: no password, no keyboard-interactive, no PAM. The keys it
 *   takes are those registered (Tokens page) by the people who may open a
 *   shell here, the owner and the editors, written before each tunnel.
 * - One host key per workspace, kept in the Durable Object's storage and
 *   written back at each start: a wake from a snapshot or a backup, and a
 *   new image, keep it.
 * - The same environment as a terminal: root's login shell, the same tmux
 *   server (`tmux attach -t main`), the CA trust of the network policy; its
 *   traffic goes out through the same egress rules as everything else.
 * - Failed keys are counted (sandbox/ssh-keys.sh's logic, below): after
 *   THROTTLE_FAILURES within THROTTLE_WINDOW_SECONDS every key is refused
 *   until the window has passed.
 */
import { ErrorCode } from "../../protocol/errors";
import { AppError, describe } from "../errors";
import { CA_TRUST_ENV } from "../sandbox/environment";
import type { Sandbox } from "../sandbox/sandbox";

export const SSH_PORT = 22;
export const THROTTLE_FAILURES = 10;
export const THROTTLE_WINDOW_SECONDS = 60;

const DIR = "/etc/cloud-ide/ssh";
const HOST_KEY_STORAGE = "ssh:hostKey";

const SSHD_CONFIG = `# Written by the IDE (worker/ssh/ssh-server.ts) at each start of sshd.
Port ${SSH_PORT}
ListenAddress 0.0.0.0
ListenAddress ::
HostKey ${DIR}/ssh_host_ed25519_key
PidFile /run/cloud-ide-sshd.pid
PermitRootLogin prohibit-password
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitEmptyPasswords no
UsePAM no
AuthorizedKeysFile none
AuthorizedKeysCommand ${DIR}/authorized-keys %f
AuthorizedKeysCommandUser root
RequiredRSASize 3072
MaxAuthTries 6
LoginGraceTime 30
# Every connection comes from the Worker's one address: the IDE counts failed keys itself.
PerSourcePenalties no
MaxStartups 20:50:60
AllowTcpForwarding yes
AllowStreamLocalForwarding yes
X11Forwarding no
PrintMotd no
AcceptEnv LANG LC_* COLORTERM TERM_PROGRAM TERM_PROGRAM_VERSION
SetEnv ${Object.entries({ LANG: "C.UTF-8", ...CA_TRUST_ENV })
  .map(([name, value]) => `${name}=${value}`)
  .join(" ")}
Subsystem sftp internal-sftp
`;

/** sshd's AuthorizedKeysCommand: the registered keys for a key it knows, nothing (and a count) for one it does not. */
const KEYS_SCRIPT = `#!/bin/sh
# Written by the IDE (worker/ssh/ssh-server.ts). $1: the fingerprint of the key a client offers.
state=/run/cloud-ide-ssh
keys=${DIR}/authorized_keys
mkdir -p "$state"
exec 9>"$state/lock"
flock 9
now=$(date +%s)
recent=$(awk -v since=$((now - ${THROTTLE_WINDOW_SECONDS})) '$1 > since' "$state/failures" 2>/dev/null | wc -l)
if [ "$recent" -ge ${THROTTLE_FAILURES} ]; then
  echo "$now throttled $1" >>"$state/log"
  exit 0
fi
if ssh-keygen -lf "$keys" 2>/dev/null | awk '{print $2}' | grep -qxF -- "$1"; then
  : >"$state/failures"
  cat "$keys"
  exit 0
fi
echo "$now" >>"$state/failures"
echo "$now refused $1" >>"$state/log"
exit 0
`;

/** Writes the files, the host key (or makes one), starts sshd unless it runs; prints the host key when it was made. */
const START_SCRIPT = `set -eu
[ -x /usr/sbin/sshd ] || { echo "this workspace's image has no sshd (openssh-server)" >&2; exit 3; }
d=${DIR}
mkdir -p "$d" /run/sshd /run/cloud-ide-ssh
chmod 755 /etc/cloud-ide "$d"
umask 022
printf '%s' "$KEYS_SCRIPT" >"$d/authorized-keys.new" && chmod 755 "$d/authorized-keys.new" && mv "$d/authorized-keys.new" "$d/authorized-keys"
printf '%s' "$AUTHORIZED_KEYS" >"$d/authorized_keys.new" && mv "$d/authorized_keys.new" "$d/authorized_keys"
changed=1
[ -f "$d/sshd_config" ] && [ "$(cat "$d/sshd_config")" = "$(printf '%s' "$SSHD_CONFIG")" ] && changed=0
printf '%s' "$SSHD_CONFIG" >"$d/sshd_config.new" && mv "$d/sshd_config.new" "$d/sshd_config"
umask 077
made=0
if [ -n "$HOST_KEY" ]; then
  if [ "$(cat "$d/ssh_host_ed25519_key" 2>/dev/null)" != "$(printf '%s' "$HOST_KEY")" ]; then
    printf '%s\\n' "$HOST_KEY" >"$d/ssh_host_ed25519_key"
    ssh-keygen -y -f "$d/ssh_host_ed25519_key" >"$d/ssh_host_ed25519_key.pub"
    changed=1
  fi
else
  rm -f "$d/ssh_host_ed25519_key" "$d/ssh_host_ed25519_key.pub"
  ssh-keygen -q -t ed25519 -N '' -C cloud-ide-workspace -f "$d/ssh_host_ed25519_key"
  made=1
fi
# A root account locked by '!' refuses keys too: unlock it for keys (it has no password either way).
if grep -q '^root:!' /etc/shadow; then usermod -p '*' root; fi
pid=$(cat /run/cloud-ide-sshd.pid 2>/dev/null || true)
if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sshd ]; then
  [ "$changed" = 0 ] || kill -HUP "$pid"
else
  # A pid file from before a snapshot names nothing now; sshd writes it once it listens.
  rm -f /run/cloud-ide-sshd.pid
  env -u SSHD_CONFIG -u KEYS_SCRIPT -u AUTHORIZED_KEYS -u HOST_KEY /usr/sbin/sshd -f "$d/sshd_config"
  i=0
  while [ ! -s /run/cloud-ide-sshd.pid ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
fi
[ "$made" = 0 ] || cat "$d/ssh_host_ed25519_key"
`;

export interface SshServerDeps {
  sandbox: Sandbox;
  storage: DurableObjectStorage;
  /** The public key lines of everyone who may open a shell here (the owner's and the editors'). */
  authorizedKeys(): Promise<string[]>;
}

export class SshServer {
  /** What the last start wrote, in which container: the same again needs no exec. */
  private started: { generation: number; keys: string } | undefined;
  /** One start at a time (tunnels opened together share it). */
  private starting: Promise<void> | undefined;

  constructor(private readonly deps: SshServerDeps) {}

  /**
   * Makes sure sshd runs in the (running) container with the current keys.
   * Throws SSH_UNAVAILABLE when it cannot (an image without openssh-server).
   */
  async ensure(): Promise<void> {
    while (this.starting) await this.starting.catch(() => {});
    const keys = `${(await this.deps.authorizedKeys()).join("\n")}\n`;
    const generation = this.deps.sandbox.generation;
    if (this.started?.generation === generation && this.started.keys === keys) return;
    const run = this.start(keys, generation);
    this.starting = run;
    try {
      await run;
    } finally {
      if (this.starting === run) this.starting = undefined;
    }
  }

  private async start(keys: string, generation: number): Promise<void> {
    const hostKey = (await this.deps.storage.get<string>(HOST_KEY_STORAGE)) ?? "";
    const result = await this.deps.sandbox.run(["sh", "-c", START_SCRIPT], {
      env: { SSHD_CONFIG, KEYS_SCRIPT, AUTHORIZED_KEYS: keys, HOST_KEY: hostKey.trim() },
    });
    if (result.exitCode !== 0) {
      throw new AppError(
        ErrorCode.SSH_UNAVAILABLE,
        result.exitCode === 3
          ? "This workspace's system has no sshd: move it to the current image (Backups: Move to the current image), then connect again."
          : `sshd would not start: ${result.stderr.trim().slice(0, 500) || `exit ${result.exitCode}`}`,
      );
    }
    const made = result.stdout.trim();
    if (made) {
      if (!made.includes("PRIVATE KEY")) throw new Error(`the new host key reads ${describe(made.slice(0, 40))}`);
      await this.deps.storage.put(HOST_KEY_STORAGE, made);
    }
    this.started = { generation, keys };
  }
}
