import { describe, expect, it } from "vitest";
import { ERROR_STATUS, ErrorCode } from "../protocol/errors";
import { AppError, settle, unwrap } from "./errors";
import { answerError, errorResponse } from "./http";

describe("the error table", () => {
  it("gives every code an HTTP error status, and names no code that does not exist", () => {
    for (const code of Object.values(ErrorCode)) {
      const status = ERROR_STATUS[code];
      expect(Number.isInteger(status), code).toBe(true);
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
    }
    expect(Object.keys(ERROR_STATUS).sort()).toEqual(Object.values(ErrorCode).sort());
  });

  it("answers an AppError with its code's status and a Retry-After when it has one", async () => {
    const response = errorResponse(new AppError(ErrorCode.TOO_MANY_ATTEMPTS, "Wait.", 42));
    expect(response.status).toBe(429);
    expect(response.headers.get("Retry-After")).toBe("42");
    expect(await response.json()).toEqual({ code: "TOO_MANY_ATTEMPTS", message: "Wait." });
  });

  it("answers anything else with 500, a fixed message naming a request id, and keeps the details out", async () => {
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => logged.push(...args);
    try {
      const request = new Request("https://ide.test/api/x", { headers: { "cf-ray": "ray123" } });
      const response = answerError(new Error("secret internal detail"), request);
      expect(response.status).toBe(500);
      const body = (await response.json()) as { code: string; message: string };
      expect(body.code).toBe("INTERNAL");
      expect(body.message).toContain("ray123");
      expect(body.message).not.toContain("secret");
      expect(logged.map(String).join(" ")).toContain("secret internal detail");
    } finally {
      console.error = original;
    }
  });
});

describe("failures across Durable Object RPC", () => {
  it("come back as data and are thrown again as the same code and message", async () => {
    const result = await settle(async () => {
      throw new AppError(ErrorCode.CONTAINER_UNAVAILABLE, "The container could not start.");
    });
    expect(result).toEqual({
      ok: false,
      error: { code: "CONTAINER_UNAVAILABLE", message: "The container could not start." },
    });
    // Structured clone is what RPC does to a result.
    const error = (() => {
      try {
        unwrap(structuredClone(result));
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "CONTAINER_UNAVAILABLE", message: "The container could not start." });
  });

  it("let a bug throw (the Worker logs it and answers 500)", async () => {
    await expect(
      settle(() => {
        throw new TypeError("a bug");
      }),
    ).rejects.toThrow("a bug");
    expect(unwrap(await settle(() => 7))).toBe(7);
  });
});
