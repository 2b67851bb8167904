import { DurableObject } from "cloudflare:workers";
import type { SignInKind } from "../../protocol/session";

/** How long a device login waits for its approval. */
export const DEVICE_LOGIN_SECONDS = 600;
/** Seconds the client waits between polls. */
export const DEVICE_POLL_SECONDS = 2;

interface Record {
  /** SHA-256 of the device code's secret (hex). */
  secretHash: string;
  expiresAt: number;
  approvedBy?: { id: string; via: SignInKind };
  taken?: true;
}

const KEY = "login";

/**
 * One `cloud-ide login` (a Durable Object named `device:{user code}`): the
 * client opened it with a secret it keeps; the signed-in person who reads
 * the same user code on the /device page approves it; the client's next
 * poll with its secret takes the approval once (the Worker then makes its
 * token). Its storage is deleted when it expires.
 */
export class DeviceLogin extends DurableObject<Env> {
  /** Opens the login; false when this user code is in use already (the Worker picks another). */
  open(secretHash: string, now = Date.now()): boolean {
    const current = this.ctx.storage.kv.get<Record>(KEY);
    if (current && current.expiresAt > now) return false;
    const expiresAt = now + DEVICE_LOGIN_SECONDS * 1000;
    this.ctx.storage.kv.put(KEY, { secretHash, expiresAt } satisfies Record);
    void this.ctx.storage.setAlarm(expiresAt + 60_000);
    return true;
  }

  /** The signed-in person approves; false when there is no such login waiting. */
  approve(user: { id: string; via: SignInKind }, now = Date.now()): boolean {
    const current = this.ctx.storage.kv.get<Record>(KEY);
    if (!current || current.expiresAt <= now || current.approvedBy || current.taken) return false;
    this.ctx.storage.kv.put(KEY, { ...current, approvedBy: user } satisfies Record);
    return true;
  }

  /** The client's poll: the approver, once; "pending" before; "unusable" for a wrong secret, an expired or used login. */
  take(secretHash: string, now = Date.now()): { id: string; via: SignInKind } | "pending" | "unusable" {
    const current = this.ctx.storage.kv.get<Record>(KEY);
    if (!current || current.secretHash !== secretHash || current.expiresAt <= now || current.taken) return "unusable";
    if (!current.approvedBy) return "pending";
    this.ctx.storage.kv.put(KEY, { ...current, taken: true } satisfies Record);
    return current.approvedBy;
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
