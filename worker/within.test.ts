import { describe, expect, it } from "vitest";
import { LATE, within } from "./within";

describe("within", () => {
  it("answers the value of a promise that settles in time", async () => {
    expect(await within(Promise.resolve(7), 1000)).toBe(7);
  });

  it("answers LATE for one that does not, without waiting for it", async () => {
    const never = new Promise<number>(() => {});
    expect(await within(never, 10)).toBe(LATE);
  });

  it("lets a rejection in time through", async () => {
    await expect(within(Promise.reject(new Error("removal failed")), 1000)).rejects.toThrow("removal failed");
  });
});
