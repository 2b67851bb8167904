/**
 * Where things are in the sandbox image, and the environment its processes
 * get. The one place these are written down (the Dockerfile and
 * sandbox/profile.sh agree with them).
 */

/** The user's files: the file tree, terminals' starting folder, export and import. */
export const WORKSPACE_ROOT = "/workspace";

export const PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** A terminal's shell: a root login shell with a 256-colour, true-colour terminal. */
export const SHELL_ENV: Readonly<Record<string, string>> = {
  TERM: "xterm-256color",
  HOME: "/root",
  LANG: "C.UTF-8",
  COLORTERM: "truecolor",
};

/**
 * Where HTTPS clients find the CA of the network policy's interception
 * (worker/network/ca-trust.ts); login shells get the same from
 * sandbox/network.sh.
 */
export const CA_TRUST_ENV: Readonly<Record<string, string>> = {
  NODE_EXTRA_CA_CERTS: "/etc/cloud-ide/egress-ca.crt",
  PIP_CERT: "/etc/ssl/certs/ca-certificates.crt",
  REQUESTS_CA_BUNDLE: "/etc/ssl/certs/ca-certificates.crt",
  SSL_CERT_FILE: "/etc/ssl/certs/ca-certificates.crt",
};

/** A background process without a terminal (the Run button's dev server, language servers). */
export const PROCESS_ENV: Readonly<Record<string, string>> = { PATH, HOME: "/root", TERM: "dumb", ...CA_TRUST_ENV };

/** The IDE's own state inside the container (dev server logs, save marker, process ids). */
export const IDE_STATE_DIR = "/var/lib/cloud-ide";
/** Touched right before each snapshot: a file whose status changed after it changed after the save began. */
export const SNAPSHOT_MARKER = `${IDE_STATE_DIR}/saved-at`;

/** The language servers baked into the image (sandbox/language-servers/), outside /workspace so snapshots stay the user's. */
export const LANGUAGE_SERVERS_DIR = "/opt/language-servers";
