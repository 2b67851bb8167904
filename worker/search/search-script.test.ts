import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SearchEvent } from "../../protocol/search";
import { SEARCH_SCRIPT } from "./search-script";

/**
 * The search filter run by this machine's python3. ripgrep is stood in for by
 * commands that print what `rg --json` prints (the integration tests run the
 * real one in a container), so each rule is checked on exact input.
 */
const scratch = mkdtempSync(join(tmpdir(), "search-script-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const LIMITS = { maxResults: 100, maxBytes: 1 << 20, seconds: 20, preview: 60, before: 10, maxRanges: 5 };

type Line = SearchEvent | { type: "error"; kind: string; message: string } | { type: "start" };
type Options = Partial<typeof LIMITS & { longLine: number; check: string[]; checkGlobs: string[] }>;

/** Runs the filter over `argv`'s output; the lines after `{"type":"start"}` (which must come first unless an error does). */
function filter(argv: string[], options: Options = {}) {
  const started = Date.now();
  const run = spawnSync("python3", ["-c", SEARCH_SCRIPT, JSON.stringify({ argv, ...LIMITS, ...options })], {
    cwd: scratch,
    encoding: "utf8",
    timeout: 20_000,
  });
  expect(run.stderr).toBe("");
  const all = run.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
  if (all[0]?.type === "error") return { lines: all, ms: Date.now() - started };
  expect(all[0]).toEqual({ type: "start" });
  return { lines: all.slice(1), ms: Date.now() - started };
}

/** What ripgrep prints for one file with these matching lines (each `[text, [[start, end]...]]`, byte offsets). */
function rgOutput(path: string, lines: [string, [number, number][]][], { firstLine = 1, offset = 0 } = {}): string {
  const out = [JSON.stringify({ type: "begin", data: { path: { text: path } } })];
  lines.forEach(([text, subs], i) => {
    const bytes = Buffer.from(text);
    out.push(
      JSON.stringify({
        type: "match",
        data: {
          path: { text: path },
          lines: { text },
          line_number: firstLine + i,
          absolute_offset: offset,
          submatches: subs.map(([start, end]) => ({
            match: { text: bytes.subarray(start, end).toString() },
            start,
            end,
          })),
        },
      }),
    );
    offset += bytes.length;
  });
  out.push(JSON.stringify({ type: "end", data: { path: { text: path }, binary_offset: null, stats: {} } }));
  return `${out.join("\n")}\n`;
}

function fakeRg(name: string, output: string): string[] {
  const file = join(scratch, name);
  writeFileSync(file, output);
  return ["cat", file];
}

describe("the search filter", { timeout: 30_000 }, () => {
  it("turns ripgrep's messages into one event a file, with UTF-16 columns and ranges", () => {
    const text = "é😀 find me and find me\n";
    // Byte offsets: é is 2 bytes, 😀 is 4; "find" starts at byte 7 and 19.
    const { lines } = filter(
      fakeRg(
        "a.json",
        rgOutput("./src/a.ts", [
          [
            text,
            [
              [7, 11],
              [19, 23],
            ],
          ],
        ]),
      ),
    );
    expect(lines).toEqual([
      {
        type: "file",
        path: "src/a.ts",
        matches: [
          {
            line: 1,
            column: 5,
            text: "é😀 find me and find me",
            ranges: [
              [4, 8],
              [16, 20],
            ],
          },
        ],
      },
      { type: "done", files: 1, matches: 1, elapsedMs: expect.any(Number) },
    ]);
  });

  it("cuts a long line around its first match, and marks both cuts", () => {
    const text = `${"a".repeat(100)}needle${"b".repeat(100)}\n`;
    const { lines } = filter(fakeRg("long.json", rgOutput("long.txt", [[text, [[100, 106]]]])));
    const match = (lines[0] as Extract<SearchEvent, { type: "file" }>).matches[0];
    expect(match).toEqual({
      line: 1,
      column: 101,
      text: `…${"a".repeat(10)}needle${"b".repeat(44)}…`,
      ranges: [[11, 17]],
    });
  });

  it("reads a line over the long-line limit from the file, never keeping it whole", () => {
    const text = `${"x".repeat(5000)}needle${"y".repeat(5000)}needle\n`;
    writeFileSync(join(scratch, "huge.js"), `first line\n${text}`);
    const output = rgOutput(
      "./huge.js",
      [
        [
          text,
          [
            [5000, 5006],
            [10006, 10012],
          ],
        ],
      ],
      { firstLine: 2, offset: 11 },
    );
    const { lines } = filter(fakeRg("huge.json", output), { longLine: 1000 });
    expect(lines[0]).toEqual({
      type: "file",
      path: "huge.js",
      matches: [{ line: 2, column: 5001, text: `…${"x".repeat(10)}needle${"y".repeat(44)}…`, ranges: [[11, 17]] }],
    });
  });

  it("stops ripgrep at the result limit and says so", () => {
    const match = rgOutput("f.txt", [["hit\n", [[0, 3]]]]).split("\n")[1];
    // An endless ripgrep: the filter must kill it, or this never ends.
    const endless = ["sh", "-c", `while :; do printf '%s\\n' '${match}'; done`];
    const { lines } = filter(endless, { maxResults: 7 });
    const done = lines.at(-1);
    expect(done).toMatchObject({ type: "done", files: 1, matches: 7, limitHit: "results" });
    const sent = lines.flatMap((l) => (l.type === "file" ? l.matches : []));
    expect(sent).toHaveLength(7);
  });

  it("stops at the byte budget and at the time budget", () => {
    const match = rgOutput("f.txt", [["hit\n", [[0, 3]]]]).split("\n")[1];
    const endless = ["sh", "-c", `while :; do printf '%s\\n' '${match}'; done`];
    expect(filter(endless, { maxResults: 1_000_000, maxBytes: 5000 }).lines.at(-1)).toMatchObject({
      limitHit: "bytes",
    });
    const { lines, ms } = filter(["sleep", "30"], { seconds: 1 });
    expect(lines).toEqual([{ type: "done", files: 0, matches: 0, limitHit: "time", elapsedMs: expect.any(Number) }]);
    expect(ms).toBeLessThan(10_000);
  });

  it("checks a query that can fail first, and reports its error (or a missing ripgrep) as the only line", () => {
    const failing = ["sh", "-c", "echo 'regex parse error:\n    (\nerror: unclosed group' >&2; exit 2"];
    // The search itself would never end: only the check runs.
    expect(filter(["sleep", "60"], { check: failing }).lines).toEqual([
      { type: "error", kind: "regex", message: "regex parse error:\n    (\nerror: unclosed group" },
    ]);
    // Which input was refused comes from the globs' own check, by its exit status.
    const globsFine = ["sh", "-c", "exit 0"];
    const globsRefused = ["sh", "-c", "exit 2"];
    expect(filter(["sleep", "60"], { check: failing, checkGlobs: globsFine }).lines).toMatchObject([{ kind: "regex" }]);
    expect(filter(["sleep", "60"], { check: failing, checkGlobs: globsRefused }).lines).toMatchObject([
      { kind: "glob" },
    ]);
    expect(filter(["sh", "-c", "exit 1"], { check: ["sh", "-c", "exit 1"] }).lines).toMatchObject([{ type: "done" }]);
    expect(filter(["/nonexistent/rg"]).lines).toEqual([
      { type: "error", kind: "missing", message: expect.stringContaining("/nonexistent/rg") },
    ]);
  });

  it("reports ripgrep failing mid-search in the done line", () => {
    const { lines } = filter(["sh", "-c", "echo 'something broke' >&2; exit 2"]);
    expect(lines).toEqual([
      { type: "done", files: 0, matches: 0, error: "something broke", elapsedMs: expect.any(Number) },
    ]);
  });

  it("kills ripgrep when it is told to stop (SIGTERM)", async () => {
    const config = JSON.stringify({ argv: ["sleep", "60"], ...LIMITS });
    const child = spawn("python3", ["-c", SEARCH_SCRIPT, config], { cwd: scratch });
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    const sleeper = execFileSync("pgrep", ["-P", String(child.pid)], { encoding: "utf8" }).trim();
    expect(sleeper).toMatch(/^\d+$/);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    // Gone (the integration tests also see that no zombie is left in the container).
    expect(spawnSync("ps", ["-o", "stat=", "-p", sleeper], { encoding: "utf8" }).stdout.trim()).toBe("");
  });

  it("ends without a done line when ripgrep is killed from outside (a cancelled search)", () => {
    expect(filter(["sh", "-c", "kill -TERM $$"]).lines).toEqual([]);
  });

  it("answers done with nothing found", () => {
    expect(filter(["sh", "-c", "exit 1"]).lines).toEqual([
      { type: "done", files: 0, matches: 0, elapsedMs: expect.any(Number) },
    ]);
  });
});
