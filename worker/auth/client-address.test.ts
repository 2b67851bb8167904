import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { clientAddress } from "./client-address";

const request = (headers: Record<string, string> = {}) =>
  new Request("https://ide.example.com/api/session", { headers });

describe("the client address a sign-in is counted against", () => {
  it("is CF-Connecting-IP when Cloudflare set it", () => {
    expect(clientAddress(request({ "CF-Connecting-IP": "203.0.113.9" }), false)).toBe("203.0.113.9");
  });

  it("is never picked by a header under vite dev, where the caller's own CF-Connecting-IP would pass (issue 42)", () => {
    for (const header of ["CF-Connecting-IP", "X-Forwarded-For", "X-Real-IP", "True-Client-IP"]) {
      expect(clientAddress(request({ [header]: "203.0.113.9" }), true), header).toBe("loopback");
    }
  });

  it("refuses a sign-in without it in production instead of pooling everybody in one bucket", () => {
    expect(() => clientAddress(request(), false)).toThrowError(AppError);
    expect(() => clientAddress(request(), false)).toThrowError(/CF-Connecting-IP/);
  });

  it("is the loopback bucket under vite dev, where nothing sets it", () => {
    expect(clientAddress(request(), true)).toBe("loopback");
  });
});
