import { describe, expect, it } from "vitest";
import { parsePreviewLabel, previewLabel, previewUrl } from "./previews";

const token = "abcdefghij0123456789wxyz";

describe("preview labels", () => {
  it("round-trips a label", () => {
    const preview = { port: 5173, workspaceId: "ada42", token };
    expect(parsePreviewLabel(previewLabel(preview))).toEqual(preview);
    expect(previewUrl(preview, "localhost:8787", "http:")).toBe(`http://5173-ada42-${token}.localhost:8787/`);
  });

  it("refuses ports out of range, leading zeros, and bad ids or tokens", () => {
    for (const label of [
      `80-ada-${token}`,
      `1023-ada-${token}`,
      `65536-ada-${token}`,
      `99999-ada-${token}`,
      `05173-ada-${token}`,
      `5173-Ada-${token}`,
      `5173-a_b-${token}`,
      `5173-ada-short`,
      `5173-ada-${token.toUpperCase()}`,
      `5173-ada-${token}-x`,
      `5173--${token}`,
      `x5173-ada-${token}`,
      "",
    ]) {
      expect(parsePreviewLabel(label), label).toBeUndefined();
    }
  });

  it("accepts the port bounds", () => {
    expect(parsePreviewLabel(`1024-ada-${token}`)?.port).toBe(1024);
    expect(parsePreviewLabel(`65535-ada-${token}`)?.port).toBe(65535);
  });
});
