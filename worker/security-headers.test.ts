import { Hono } from "hono";
import { serialize } from "hono/utils/cookie";
import { describe, expect, it } from "vitest";
import { sessionCookieName, sessionCookieOptions } from "./auth/session-cookie";
import { securityHeaders } from "./security-headers";

const app = new Hono<{ Bindings: Env }>();
app.use("*", securityHeaders);
app.get("/", (c) => c.text("page"));
app.get("/bytes", () => new Response("<script>", { headers: { "Content-Security-Policy": "sandbox" } }));
const env = { PREVIEW_DOMAIN: "example-previews.com" } as Env;

describe("security headers", () => {
  it("over https: HSTS, Referrer-Policy same-origin, nosniff, no framing by others", async () => {
    const response = await app.request("https://ide.example.com/", {}, env);
    expect(response.headers.get("strict-transport-security")).toBe("max-age=31536000");
    expect(response.headers.get("referrer-policy")).toBe("same-origin");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'self'");
  });

  it("keeps a response's own stricter policy (file bytes are sandboxed)", async () => {
    const response = await app.request("https://ide.example.com/bytes", {}, env);
    expect(response.headers.get("content-security-policy")).toBe("sandbox");
  });

  it("the session cookie is __Host- prefixed over https (so it is Secure, host-only, Path=/)", () => {
    expect(sessionCookieName("https://ide.example.com/api/session")).toBe("__Host-cloud_ide_session");
    expect(sessionCookieName("http://localhost:5173/api/session")).toBe("cloud_ide_session");
    const url = "https://ide.example.com/api/session";
    const header = serialize(sessionCookieName(url), "token", sessionCookieOptions(url));
    expect(header).toMatch(/^__Host-cloud_ide_session=token;/);
    for (const attribute of ["Max-Age=604800", "Path=/", "HttpOnly", "Secure", "SameSite=Lax"]) {
      expect(header).toContain(attribute);
    }
    expect(header).not.toMatch(/Domain=/i);
    // Plain http (vite dev): the same, without Secure (browsers would drop it).
    expect(serialize("cloud_ide_session", "t", sessionCookieOptions("http://localhost:5173/"))).not.toContain("Secure");
  });
});
