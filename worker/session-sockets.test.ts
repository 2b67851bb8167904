import { describe, expect, it } from "vitest";
import { SessionSockets } from "./session-sockets";

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
});
