import { describe, expect, it } from "vitest";
import { AlarmScheduler, type AlarmStorage } from "../alarms";
import { type GrantStorage, GrantStore, OWNER_GRANT_TTL_MS } from "./grants";

/** Durable Object storage as a Map, with its one alarm. */
class MemoryStorage implements GrantStorage, AlarmStorage {
  readonly data = new Map<string, unknown>();
  alarm: number | null = null;
  async list<T>({ prefix }: { prefix: string }) {
    return new Map([...this.data].filter(([k]) => k.startsWith(prefix))) as Map<string, T>;
  }
  async get<T>(key: string) {
    return structuredClone(this.data.get(key)) as T | undefined;
  }
  async put<T>(key: string, value: T) {
    this.data.set(key, structuredClone(value));
  }
  async delete(key: string) {
    return this.data.delete(key);
  }
  async getAlarm() {
    return this.alarm;
  }
  async setAlarm(at: number) {
    this.alarm = at;
  }
  async deleteAlarm() {
    this.alarm = null;
  }
}

function clock(start = 1_000_000) {
  const c = { now: start, read: () => c.now };
  return c;
}

describe("GrantStore", () => {
  it("finds a grant only with its own token and port, until it expires", async () => {
    const time = clock();
    const store = new GrantStore(new MemoryStorage(), time.read);
    const share = await store.createShare(5173, 300_000);
    expect(share.token).toMatch(/^[a-z0-9]{24}$/);
    expect(await store.find(share.token, 5173)).toEqual(share);
    expect(await store.find(share.token, 5174)).toBeUndefined();
    // Another token one character off (never the same one: tokens may end in "x").
    const near = `${share.token.slice(0, -1)}${share.token.endsWith("x") ? "y" : "x"}`;
    expect(await store.find(near, 5173)).toBeUndefined();
    expect(await store.find("", 5173)).toBeUndefined();
    time.now += 299_999;
    expect(await store.find(share.token, 5173)).toBeDefined();
    time.now += 1;
    expect(await store.find(share.token, 5173)).toBeUndefined();
    expect(await store.listed(5173)).toEqual([]);
  });

  it("gives each pane its own short owner grant, extended only when renewed by its id", async () => {
    const time = clock();
    const store = new GrantStore(new MemoryStorage(), time.read);
    const first = await store.renewOwner(5173);
    expect(first.shareId).toMatch(/^[a-z0-9]{12}$/);
    // Two opens are two grants: two tokens, each listed and revocable.
    const second = await store.renewOwner(5173);
    expect(second.token).not.toBe(first.token);
    expect((await store.listed(5173)).map((g) => g.shareId).sort()).toEqual([first.shareId, second.shareId].sort());
    time.now += 60_000;
    const renewed = await store.renewOwner(5173, first.shareId);
    expect(renewed.token).toBe(first.token);
    expect(renewed.expiresAt).toBe(time.now + OWNER_GRANT_TTL_MS);
    // Not renewed: it ends minutes after its pane closed.
    time.now += OWNER_GRANT_TTL_MS;
    expect(await store.find(first.token, 5173)).toBeUndefined();
    expect((await store.renewOwner(5173, first.shareId)).token).not.toBe(first.token);
    expect(OWNER_GRANT_TTL_MS).toBeLessThanOrEqual(5 * 60_000);
  });

  it("revokes a share or an owner grant by its id and port only, or all at once", async () => {
    const store = new GrantStore(new MemoryStorage(), clock().read);
    const share = await store.createShare(5173, 300_000);
    const own = await store.renewOwner(5173);
    expect(await store.revoke(3000, share.shareId ?? "")).toBeUndefined();
    expect(await store.revoke(5173, "nosuchshare0")).toBeUndefined();
    expect(await store.revoke(5173, share.shareId ?? "")).toEqual(share);
    expect(await store.find(share.token, 5173)).toBeUndefined();
    expect(await store.revoke(5173, own.shareId ?? "")).toEqual(own);
    expect(await store.find(own.token, 5173)).toBeUndefined();
    await store.createShare(5173, 300_000);
    await store.renewOwner(3000);
    expect(await store.revokeAll()).toHaveLength(2);
    expect([...(await store.listed(5173)), ...(await store.listed(3000))]).toEqual([]);
  });

  it("survives a restart of the object (grants live in storage)", async () => {
    const storage = new MemoryStorage();
    const time = clock();
    const share = await new GrantStore(storage, time.read).createShare(8080, 600_000);
    expect(await new GrantStore(storage, time.read).find(share.token, 8080)).toEqual(share);
  });
});

describe("sweeping expired grants with the alarm", () => {
  it("removes what expired and sets the alarm for the next expiry", async () => {
    const storage = new MemoryStorage();
    const time = clock();
    const store = new GrantStore(storage, time.read);
    const swept: string[] = [];
    const alarms: AlarmScheduler = new AlarmScheduler(
      storage,
      {
        grants: async () => {
          const { expired, next } = await store.sweep();
          swept.push(...expired.map((g) => g.token));
          if (next !== undefined) await alarms.schedule("grants", next);
        },
      },
      time.read,
    );
    const short = await store.createShare(5173, 300_000);
    const long = await store.createShare(5173, 900_000);
    await alarms.schedule("grants", (await store.sweep()).next ?? 0);
    expect(storage.alarm).toBe(short.expiresAt);

    time.now = short.expiresAt;
    await alarms.run();
    expect(swept).toEqual([short.token]);
    expect(storage.data.has(`preview-grant:${short.token}`)).toBe(false);
    expect(storage.alarm).toBe(long.expiresAt);

    time.now = long.expiresAt;
    await alarms.run();
    expect(swept).toEqual([short.token, long.token]);
    expect(storage.alarm).toBeNull();
  });

  it("keeps other features' tasks and retries a task that throws", async () => {
    const storage = new MemoryStorage();
    const time = clock();
    let calls = 0;
    const alarms = new AlarmScheduler(
      storage,
      {
        flaky: async () => {
          calls++;
          throw new Error("boom");
        },
        later: async () => {},
      },
      time.read,
    );
    await alarms.schedule("flaky", time.now + 10);
    await alarms.schedule("later", time.now + 1_000_000);
    expect(storage.alarm).toBe(time.now + 10);
    time.now += 10;
    await alarms.run();
    expect(calls).toBe(1);
    expect(storage.alarm).toBe(time.now + 60_000);
    await alarms.cancel("flaky");
    expect(storage.alarm).toBe(1_000_000 + 1_000_000);
  });
});
