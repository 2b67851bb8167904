import { describe, expect, it } from "vitest";
import { parseSplit } from "./directory-archive";

const manifest = "a".repeat(64);

describe("parseSplit", () => {
  it("reads the backup script's last line", () => {
    const line = JSON.stringify({ offset: 4050, split: { manifest, deleted: ["workspace/src/index.css"], base: 553 } });
    expect(parseSplit(`curl says nothing\n${line}\n`)).toEqual({
      offset: 4050,
      manifest,
      deleted: ["workspace/src/index.css"],
    });
  });

  it("has none when the script printed none, or something else", () => {
    expect(parseSplit("")).toBeUndefined();
    expect(parseSplit("not json")).toBeUndefined();
    expect(parseSplit("{broken")).toBeUndefined();
    expect(parseSplit(JSON.stringify({ offset: 0, split: { manifest, deleted: [] } }))).toBeUndefined();
    expect(parseSplit(JSON.stringify({ offset: 1.5, split: { manifest, deleted: [] } }))).toBeUndefined();
    expect(parseSplit(JSON.stringify({ offset: 10, split: { manifest: "short", deleted: [] } }))).toBeUndefined();
    expect(parseSplit(JSON.stringify({ offset: 10, split: { manifest, deleted: [1] } }))).toBeUndefined();
    expect(parseSplit(JSON.stringify({ offset: 10, split: { manifest } }))).toBeUndefined();
  });
});
