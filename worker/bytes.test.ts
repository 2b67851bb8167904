import { describe, expect, it } from "vitest";
import { concatBytes } from "./bytes";

describe("concatBytes", () => {
  it("joins parts in order, empty ones included", () => {
    const joined = concatBytes([Uint8Array.of(1, 2), new Uint8Array(0), Uint8Array.of(3)]);
    expect([...joined]).toEqual([1, 2, 3]);
    expect(concatBytes([]).byteLength).toBe(0);
  });
});
