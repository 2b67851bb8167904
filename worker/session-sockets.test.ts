import { describe, expect, it } from "vitest";
import { endsWithSession, SessionSockets } from "./session-sockets";

describe("sockets by session", () => {
  it("closes the sockets of ended sessions only, or all of them", () => {
    const sockets = new SessionSockets();
    const closed: string[] = [];
    const socket = (name: string) => (code: number) => closed.push(`${name}:${code}`);
    sockets.add("a", socket("a1"));
    const removeA2 = sockets.add("a", socket("a2"));
    sockets.add("b", socket("b1"));
    removeA2();
    expect(sockets.close(["a"], "signed out")).toBe(1);
    expect(closed).toEqual(["a1:1008"]);
    sockets.add("c", socket("c1"));
    expect(sockets.close(null, "signed out everywhere")).toBe(2);
    expect(closed.sort()).toEqual(["a1:1008", "b1:1008", "c1:1008"]);
    expect(sockets.close(null, "again")).toBe(0);
  });

  it("closes every socket of one user, whichever session opened it (a member removed)", () => {
    const sockets = new SessionSockets();
    const closed: string[] = [];
    const socket = (name: string) => (code: number) => closed.push(`${name}:${code}`);
    sockets.add("g1", socket("guest-a"), "guest-1");
    sockets.add("g2", socket("guest-b"), "guest-1");
    sockets.add("o1", socket("owner"), "owner");
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
    const response = endsWithSession(new Response(source), sockets, "s1");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("event: ready\n\n");
    expect(sockets.close(["other"], "signed out")).toBe(0);
    expect(sockets.close(["s1"], "signed out")).toBe(1);
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(cancelled).toBe(true);
    expect(sockets.close(["s1"], "again")).toBe(0);
  });
});
