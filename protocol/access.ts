/**
 * Personal access tokens, SSH public keys and the device login: how a
 * command line (which has no browser cookie) reaches the IDE. The Worker
 * keeps them in each user's Directory (worker/auth/access-store.ts); the
 * app's Tokens page and the CLI (cli/) speak these types.
 */

/** `POST /api/tokens` */
export interface CreateTokenRequest {
  name: string;
  /** Its lifetime, MIN_TOKEN_TTL_SECONDS..MAX_TOKEN_TTL_SECONDS. */
  ttlSeconds: number;
}

/** `POST /api/tokens` answers it, the only time `token` is ever shown. */
export interface CreatedToken {
  id: string;
  name: string;
  token: string;
  /** ISO time. */
  expiresAt: string;
}

/** One live token in `GET /api/tokens` (never its secret). */
export interface TokenSummary {
  id: string;
  name: string;
  createdAt: string;
  expiresAt: string;
  /** ISO time of its last use (written at most once a minute), or null. */
  lastUsedAt: string | null;
}

export const MIN_TOKEN_TTL_SECONDS = 60;
export const MAX_TOKEN_TTL_SECONDS = 366 * 24 * 3600;
export const MAX_TOKENS = 50;
export const MAX_SSH_KEYS = 50;
/** What `cloud-ide login` asks for: 30 days. */
export const DEVICE_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

/** `POST /api/ssh-keys` */
export interface AddSshKeyRequest {
  name: string;
  /** One line as in `~/.ssh/id_ed25519.pub`: `TYPE BASE64 [comment]`. */
  publicKey: string;
}

/** One registered key, `GET /api/ssh-keys`. */
export interface SshKeySummary {
  id: string;
  name: string;
  /** `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`, ... */
  type: string;
  /** As `ssh-keygen -l` prints it: `SHA256:...`. */
  fingerprint: string;
  /** The key line as registered (type and base64; the comment dropped). */
  publicKey: string;
  createdAt: string;
}

/** `POST /api/device` (no session): a new device login for `cloud-ide login`. */
export interface DeviceLoginStart {
  /** The secret the client polls with; never shown to the person. */
  deviceCode: string;
  /** What the person checks on the page: `ABCD-EFGH`. */
  userCode: string;
  /** The page to open (it carries the user code). */
  verificationUrl: string;
  /** Seconds between polls. */
  interval: number;
  /** Seconds until the login expires unused. */
  expiresIn: number;
}

/** `POST /api/device/token` {deviceCode}: 428 DEVICE_LOGIN_PENDING until approved, then this once. */
export type DeviceLoginToken = CreatedToken;

/** `POST /api/device/approve` {userCode}: the signed-in person approves the login. */
export interface DeviceApproveRequest {
  userCode: string;
}

/** Letters people read without confusing them (no vowels: no words; no 0/O, 1/I). */
export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

/** `ABCD-EFGH`, case and the dash optional; undefined when it cannot be one. */
export function normalUserCode(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const letters = value.toUpperCase().replace(/[\s-]/g, "");
  if (letters.length !== 8) return undefined;
  for (const letter of letters) if (!USER_CODE_ALPHABET.includes(letter)) return undefined;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

export const MIN_RSA_BITS = 3072;

/** A public key checked: its type, the key's bytes (the blob a fingerprint hashes) and the line to register. */
export interface ParsedPublicKey {
  type: string;
  blob: Uint8Array;
  line: string;
}

const ECDSA_CURVES: Record<string, string> = {
  "ecdsa-sha2-nistp256": "nistp256",
  "ecdsa-sha2-nistp384": "nistp384",
  "ecdsa-sha2-nistp521": "nistp521",
};

/**
 * Reads an OpenSSH public key line and accepts Ed25519, ECDSA (NIST P-256,
 * P-384, P-521) and RSA of MIN_RSA_BITS or more: the algorithms the
 * workspace's sshd is set to accept. The blob is parsed, not just its
 * prefix: its own type must be the line's, and an RSA modulus is measured.
 */
export function parsePublicKey(value: unknown): ParsedPublicKey | { error: string } {
  if (typeof value !== "string" || value.trim() === "") {
    return { error: "publicKey is required: paste one line such as the contents of ~/.ssh/id_ed25519.pub." };
  }
  if (value.length > 16_384) return { error: "publicKey is too long to be one key line." };
  const lines = value.trim().split(/\r?\n/);
  if (lines.length !== 1) return { error: "publicKey must be one key: paste one line (TYPE BASE64 [comment])." };
  if (/PRIVATE KEY/.test(value)) {
    return { error: "That is a private key: paste the public one (the .pub file), and keep the private key secret." };
  }
  const [type = "", data = ""] = (lines[0] ?? "").trim().split(/\s+/);
  const supported = "ssh-ed25519, ecdsa-sha2-nistp256/384/521, or ssh-rsa of 3072 bits or more";
  if (type === "ssh-dss") return { error: `DSA keys are not accepted (OpenSSH dropped them): use ${supported}.` };
  if (type !== "ssh-ed25519" && type !== "ssh-rsa" && !(type in ECDSA_CURVES)) {
    return { error: `"${type.slice(0, 60)}" is not an accepted key type: use ${supported}.` };
  }
  let blob: Uint8Array;
  try {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data)) throw new Error("not base64");
    blob = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  } catch {
    return { error: "The key's second field is not base64: paste the whole line of the .pub file." };
  }
  const reader = new WireReader(blob);
  try {
    const inner = new TextDecoder().decode(reader.string());
    if (inner !== type) return { error: `The key says it is ${type} but its data is of type ${inner.slice(0, 60)}.` };
    if (type === "ssh-ed25519") {
      if (reader.string().length !== 32) return { error: "This ssh-ed25519 key's data is not 32 bytes." };
    } else if (type === "ssh-rsa") {
      reader.string(); // e
      const bits = bitLength(reader.string());
      if (bits < MIN_RSA_BITS) {
        return {
          error: `This RSA key has ${bits} bits; ${MIN_RSA_BITS} or more are needed (or use ed25519: ssh-keygen -t ed25519).`,
        };
      }
    } else {
      const curve = new TextDecoder().decode(reader.string());
      if (curve !== ECDSA_CURVES[type]) return { error: `This ${type} key names the curve ${curve.slice(0, 40)}.` };
      if (reader.string().length === 0) return { error: `This ${type} key has no point.` };
    }
    if (!reader.done) return { error: "The key's data has bytes after the key." };
  } catch {
    return { error: "The key's data is cut short: paste the whole line of the .pub file." };
  }
  return { type, blob, line: `${type} ${data}` };
}

/** Bits of an SSH mpint (big-endian, a leading zero byte when its top bit is set). */
function bitLength(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length && bytes[index] === 0) index++;
  if (index === bytes.length) return 0;
  return (bytes.length - index - 1) * 8 + Math.floor(Math.log2(bytes[index] as number)) + 1;
}

/** RFC 4251's `string`: a 32-bit big-endian length, then that many bytes. */
class WireReader {
  private offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  string(): Uint8Array {
    if (this.offset + 4 > this.bytes.length) throw new Error("short");
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.offset, 4);
    const length = view.getUint32(0);
    const start = this.offset + 4;
    if (start + length > this.bytes.length) throw new Error("short");
    this.offset = start + length;
    return this.bytes.subarray(start, start + length);
  }

  get done(): boolean {
    return this.offset === this.bytes.length;
  }
}

/** A name for a token or key: 1-100 characters, no control characters. */
export function checkLabel(value: unknown, what: string): { name: string } | { error: string } {
  if (typeof value !== "string" || value.trim() === "") return { error: `${what} needs a name.` };
  const name = value.trim();
  if (name.length > 100) return { error: `${what}'s name is longer than 100 characters.` };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
  if (/[\u0000-\u001f\u007f]/.test(name)) return { error: `${what}'s name has control characters.` };
  return { name };
}

/** A personal access token starts with this, so it is recognised when pasted or leaked (secret scanners). */
export const ACCESS_TOKEN_PREFIX = "cide_";
