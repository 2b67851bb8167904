import { describe, expect, it } from "vitest";
import { MAX_CONNECTIONS_PER_PERSON } from "../protocol/connections";
import { AppError } from "./errors";
import { endsWithSession, SessionSockets } from "./session-sockets";

describe("sockets by session", () => {
  it("closes the sockets of ended sessions only, or all of them", () => {
    const sockets = new SessionSockets();
    const closed: string[] = [];
    const socket = (name: string) => (code: number) => closed.push(`${name}:${code}`);
    sockets.add("a", socket("a1"), "u", "terminal");
    const removeA2 = sockets.add("a", socket("a2"), "u", "terminal");
    sockets.add("b", socket("b1"), "u", "terminal");
    removeA2();
    expect(sockets.close(["a"], "signed out")).toBe(1);
    expect(closed).toEqual(["a1:1008"]);
    sockets.add("c", socket("c1"), "u", "terminal");
    expect(sockets.close(null, "signed out everywhere")).toBe(2);
    expect(closed.sort()).toEqual(["a1:1008", "b1:1008", "c1:1008"]);
    expect(sockets.close(null, "again")).toBe(0);
  });

  it("closes every socket of one user, whichever session opened it (a member removed)", () => {
    const sockets = new SessionSockets();
    const closed: string[] = [];
    const socket = (name: string) => (code: number) => closed.push(`${name}:${code}`);
    sockets.add("g1", socket("guest-a"), "guest-1", "presence");
    sockets.add("g2", socket("guest-b"), "guest-1", "presence");
    sockets.add("o1", socket("owner"), "owner", "presence");
    expect(sockets.closeUser("guest-1", "removed")).toBe(2);
    expect(closed.sort()).toEqual(["guest-a:1008", "guest-b:1008"]);
    expect(sockets.closeUser("guest-1", "again")).toBe(0);
    expect(sockets.close(null, "all")).toBe(1);
  });
});

describe("an event stream bound to its session", () => {
  it("ends when its session ends, and cancels what fed it (issue 19, finding 4)", async () => {
    const sockets = new SessionSockets();
    let cancelled = false;
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("event: ready\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    const response = endsWithSession(new Response(source), sockets, "s1", "u", "file-events");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("event: ready\n\n");
    expect(sockets.close(["other"], "signed out")).toBe(0);
    expect(sockets.close(["s1"], "signed out")).toBe(1);
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(cancelled).toBe(true);
    expect(sockets.close(["s1"], "again")).toBe(0);
  });
});

describe("a person's connections of a kind (issue 42)", () => {
  it("are refused past the cap with 429 TOO_MANY_CONNECTIONS, counting those being opened, per person and kind", () => {
    const sockets = new SessionSockets();
    const cap = MAX_CONNECTIONS_PER_PERSON.presence;
    const forgets: (() => void)[] = [];
    for (let i = 0; i < cap - 1; i++) forgets.push(sockets.add(`s${i}`, () => {}, "ada", "presence"));
    // One being opened (admitted, its handler not done) counts too.
    const opening = sockets.admit("ada", "presence");
    let refused: unknown;
    try {
      sockets.admit("ada", "presence");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: "TOO_MANY_CONNECTIONS" });
    expect((refused as Error).message).toContain(`${cap} presence connections`);
    // Another person, and another kind, are not counted with hers.
    sockets.admit("grace", "presence")();
    sockets.admit("ada", "terminal")();
    // The handler answered without opening one: the slot is free again.
    opening();
    opening();
    sockets.admit("ada", "presence")();
    // A socket that closes frees its slot; so does one its session's end closes.
    forgets[0]?.();
    forgets[0]?.();
    expect(sockets.count("ada", "presence")).toBe(cap - 2);
    expect(sockets.close(["s1", "s2"], "signed out")).toBe(2);
    expect(sockets.count("ada", "presence")).toBe(cap - 4);
    forgets[1]?.();
    expect(sockets.count("ada", "presence")).toBe(cap - 4);
  });

  it("of an event stream end the person's oldest one past the cap, rather than refuse (a gone page's may linger)", () => {
    const sockets = new SessionSockets();
    const cap = MAX_CONNECTIONS_PER_PERSON["file-events"];
    const closed: string[] = [];
    for (let i = 0; i < cap; i++) {
      const done = sockets.admit("ada", "file-events");
      sockets.add(`s${i}`, (code) => closed.push(`s${i}:${code}`), "ada", "file-events");
      done();
    }
    const done = sockets.admit("ada", "file-events");
    expect(closed).toEqual(["s0:1008"]);
    sockets.add("s-new", () => closed.push("s-new"), "ada", "file-events");
    done();
    expect(sockets.count("ada", "file-events")).toBe(cap);
    // The next one ends the next oldest; signing out the ended one's session closes nothing more.
    sockets.admit("ada", "file-events")();
    expect(closed).toEqual(["s0:1008", "s1:1008"]);
    expect(sockets.close(["s0", "s1"], "signed out")).toBe(0);
  });
});
