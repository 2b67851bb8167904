import { describe, expect, it } from "vitest";
import { cloneCommand } from "./clone";

describe("cloneCommand", () => {
  it("quotes the URL and the branch for the shell, after --", () => {
    expect(cloneCommand({ url: "https://example.com/a'b.git" })).toBe(
      "git clone --progress -- 'https://example.com/a'\\''b.git' .",
    );
    expect(cloneCommand({ url: "git@example.com:o/r.git", branch: "dev" })).toBe(
      "git clone --progress --branch 'dev' -- 'git@example.com:o/r.git' .",
    );
  });
});
