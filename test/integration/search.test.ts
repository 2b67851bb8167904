import { beforeAll, describe, expect, it } from "vitest";
import type { FileIndex, SearchEvent } from "../../protocol/search";
import { api } from "../support/api";
import { putFile, shell, workspaceContainer } from "../support/files";
import { createWorkspace, ownerApi } from "../support/session";
import { accessUser } from "../support/users";

let id: string;
let container: string;

beforeAll(async () => {
  id = await createWorkspace("search test", "empty");
  container = await workspaceContainer(id);
});

type FileEvent = Extract<SearchEvent, { type: "file" }>;
type DoneEvent = Extract<SearchEvent, { type: "done" }>;

const searchUrl = (query: Record<string, string>) => `/api/workspaces/${id}/search?${new URLSearchParams(query)}`;

/** Reads a whole search: its file events (merged by path, in order) and its done line. */
async function search(query: Record<string, string>) {
  const response = await ownerApi(searchUrl(query));
  expect(response.status, await peekError(response)).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
  const lines = (await response.text())
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as SearchEvent);
  const done = lines.at(-1) as DoneEvent;
  expect(done.type).toBe("done");
  const files = new Map<string, FileEvent["matches"]>();
  for (const line of lines.slice(0, -1)) {
    if (line.type !== "file") throw new Error(`unexpected line ${JSON.stringify(line)}`);
    files.set(line.path, [...(files.get(line.path) ?? []), ...line.matches]);
  }
  return { files, done };
}

async function peekError(response: Response): Promise<string> {
  return response.ok ? "" : await response.clone().text();
}

/** Lines of a streamed response as they arrive. */
async function* lines(response: Response): AsyncGenerator<SearchEvent> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let newline = buffer.indexOf("\n");
    while (newline !== -1) {
      yield JSON.parse(buffer.slice(0, newline)) as SearchEvent;
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf("\n");
    }
  }
}

const ripgrepCount = () => Number(shell(container, "pgrep -c -x rg || true"));

async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}: ${shell(container, "ps -eo pid,ppid,etime,args | cut -c1-150")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A search that runs for seconds and finds nothing in `slow.txt`: Unicode word
 * boundaries over non-ASCII text keep ripgrep off its fast engines (about a
 * megabyte a second over lines that never repeat), and no line of 12 words
 * holds 31.
 */
const SLOW = "(\\b\\w{2,9}\\b\\s){30}\\b\\w{10}\\b";
const FOUND = `${"аб ".repeat(30)}абвгдежзий`;
const slowTree = (dir: string) =>
  shell(
    container,
    `mkdir -p /workspace/${dir} && cd /workspace/${dir} && echo '${FOUND}' > found.txt && python3 -c "
import random
letters = 'абвгдеёжзийклмнопрстуфхцчшщыэюя'
lines = [' '.join(''.join(random.choices(letters, k=random.randint(2, 9))) for _ in range(12)) for _ in range(60000)]
open('slow.txt', 'w').write(chr(10).join(lines))
"`,
  );

describe("search in files", () => {
  it("streams matches grouped by file, with line, column, the line and the match ranges", async () => {
    await putFile(id, "group/a.ts", "const x = 1;\nconst needle = 'Needle';\n");
    await putFile(id, "group/deep/b.md", "# title\n\nsome needle here\n");
    await putFile(id, "group/c.txt", "nothing\n");
    const { files, done } = await search({ q: "needle", include: "group" });
    expect([...files.keys()].sort()).toEqual(["group/a.ts", "group/deep/b.md"]);
    expect(files.get("group/a.ts")).toEqual([
      {
        line: 2,
        column: 7,
        text: "const needle = 'Needle';",
        ranges: [
          [6, 12],
          [16, 22],
        ],
      },
    ]);
    expect(files.get("group/deep/b.md")).toEqual([{ line: 3, column: 6, text: "some needle here", ranges: [[5, 11]] }]);
    expect(done).toMatchObject({ files: 2, matches: 2 });
    expect(done.limitHit).toBeUndefined();
  });

  it("matches case, whole words and regular expressions on request, and globs in and out", async () => {
    await putFile(id, "opts/one.ts", "Needle needles\nneedle\n");
    await putFile(id, "opts/two.md", "needle\n");
    const lines = async (query: Record<string, string>) =>
      [...(await search({ include: "opts", ...query })).files.entries()].flatMap(([path, matches]) =>
        matches.map((m) => `${path}:${m.line}:${m.column}`),
      );
    expect((await lines({ q: "Needle", case: "1" })).sort()).toEqual(["opts/one.ts:1:1"]);
    expect((await lines({ q: "needles", word: "1" })).sort()).toEqual(["opts/one.ts:1:8"]);
    expect((await lines({ q: "need", word: "1" })).sort()).toEqual([]);
    expect((await lines({ q: "^ne+dle$", regex: "1" })).sort()).toEqual(["opts/one.ts:2:1", "opts/two.md:1:1"]);
    expect((await lines({ q: "^ne+dle$" })).sort()).toEqual([]);
    expect((await lines({ q: "needle", exclude: "*.md" })).sort()).toEqual(["opts/one.ts:1:1", "opts/one.ts:2:1"]);
  });

  it("respects .gitignore and node_modules unless asked, and never looks in .git", async () => {
    shell(
      container,
      "mkdir -p /workspace/ign/node_modules/lib /workspace/ign/dist /workspace/ign/.git /workspace/ign/.config && cd /workspace/ign && " +
        "echo dist/ > .gitignore && for f in src.ts node_modules/lib/index.js dist/out.js .git/HEAD .config/settings; do echo ignoredneedle > $f; done",
    );
    const found = async (query: Record<string, string>) =>
      [...(await search({ q: "ignoredneedle", ...query })).files.keys()].sort();
    expect(await found({})).toEqual(["ign/.config/settings", "ign/src.ts"]);
    expect(await found({ ignored: "1" })).toEqual([
      "ign/.config/settings",
      "ign/dist/out.js",
      "ign/node_modules/lib/index.js",
      "ign/src.ts",
    ]);
  });

  it("answers 400 INVALID_SEARCH for a regular expression that does not compile, or a bad glob", async () => {
    const bad = await ownerApi(searchUrl({ q: "foo(", regex: "1" }));
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { code: string; message: string };
    expect(body.code).toBe("INVALID_SEARCH");
    expect(body.message).toMatch(/regular expression does not compile.*unclosed group/s);
    // The same text as a literal is fine.
    expect((await ownerApi(searchUrl({ q: "foo(" }))).status).toBe(200);
    const glob = await ownerApi(searchUrl({ q: "x", include: "[" }));
    expect(glob.status).toBe(400);
    expect(((await glob.json()) as { message: string }).message).toMatch(/glob is not valid/);
    const empty = await ownerApi(searchUrl({ q: "" }));
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { code: string }).code).toBe("INVALID_SEARCH");
  });

  it("sends the first results while ripgrep still searches, and DELETE with the page's key kills it", async () => {
    slowTree("stream");
    const client = `page-${Math.random().toString(36).slice(2, 10)}`;
    const response = await ownerApi(searchUrl({ q: SLOW, regex: "1", include: "stream", client }));
    expect(response.status).toBe(200);
    const events = lines(response);
    const first = (await events.next()).value as SearchEvent;
    expect(first).toMatchObject({ type: "file", path: "stream/found.txt" });
    // ripgrep is still on the slow file: the result came as it was found.
    expect(ripgrepCount()).toBeGreaterThan(0);
    const cancel = await ownerApi(`/api/workspaces/${id}/search?client=${client}`, { method: "DELETE" });
    expect(cancel.status).toBe(204);
    await until(() => ripgrepCount() === 0, "ripgrep to be killed");
    // The stream ends without a done line: nothing more comes.
    const rest: SearchEvent[] = [];
    for await (const event of events) rest.push(event);
    expect(rest.filter((e) => e.type === "done")).toEqual([]);
    // Without a key there is nothing to cancel.
    expect((await ownerApi(`/api/workspaces/${id}/search`, { method: "DELETE" })).status).toBe(400);
  });

  it("ends a page's running search when the same page starts a new one", async () => {
    slowTree("replace");
    const client = `page-${Math.random().toString(36).slice(2, 10)}`;
    const slow = await ownerApi(searchUrl({ q: SLOW, regex: "1", include: "replace", client }));
    expect(slow.status).toBe(200);
    await until(() => ripgrepCount() > 0, "the slow search to run");
    const quick = await search({ q: "абвгдежзий", include: "replace", client });
    expect([...quick.files.keys()]).toEqual(["replace/found.txt"]);
    // The first search's stream ends, and no ripgrep is left.
    const rest = await slow.text();
    expect(rest).not.toContain('"type":"done","files":1');
    await until(() => ripgrepCount() === 0, "the replaced search's ripgrep to be killed");
  });

  it("keeps a 50 MB minified file from slowing the search or flooding the page", async () => {
    shell(
      container,
      "mkdir -p /workspace/min && cd /workspace/min && " +
        `python3 -c "import sys; sys.stdout.write('var a=\\"needle\\";function f(){return 1}' * 1400000)" > bundle.min.js && ` +
        "echo 'a needle in a small file' > small.txt",
    );
    expect(Number(shell(container, "stat -c %s /workspace/min/bundle.min.js"))).toBeGreaterThan(50_000_000);
    const response = await ownerApi(searchUrl({ q: "needle", include: "min" }));
    const text = await response.text();
    // 1.4 million matches on one 50 MB line come back as one short preview.
    expect(text.length).toBeLessThan(10_000);
    const events = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as SearchEvent);
    const bundle = events.find((e): e is FileEvent => e.type === "file" && e.path === "min/bundle.min.js");
    expect(bundle?.matches).toHaveLength(1);
    const [match] = bundle?.matches ?? [];
    expect(match?.line).toBe(1);
    expect(match?.column).toBe(8);
    expect(match?.text.length).toBeLessThanOrEqual(260);
    expect(match?.text.endsWith("…")).toBe(true);
    expect(match?.ranges.length).toBeGreaterThan(1);
    for (const [start, end] of match?.ranges ?? []) expect(match?.text.slice(start, end)).toBe("needle");
    expect(events.some((e) => e.type === "file" && e.path === "min/small.txt")).toBe(true);
  });

  it("stops at the result limit and says so", async () => {
    shell(container, "mkdir -p /workspace/many && seq 1 500 | sed 's/^/manyneedle /' > /workspace/many/lines.txt");
    const { files, done } = await search({ q: "manyneedle", max: "120" });
    expect(files.get("many/lines.txt")).toHaveLength(120);
    expect(done).toMatchObject({ matches: 120, limitHit: "results" });
  });
});

describe("the file index", () => {
  it("lists every file search would look in, by the same ignore rules", async () => {
    shell(
      container,
      "mkdir -p /workspace/idx/sub /workspace/idx/node_modules/x /workspace/idx/build && cd /workspace/idx && " +
        "echo build/ > .gitignore && touch sub/one.ts node_modules/x/i.js build/out.js .hidden",
    );
    const response = await ownerApi(`/api/workspaces/${id}/files/index`);
    expect(response.status).toBe(200);
    const { files, limitHit } = (await response.json()) as FileIndex;
    expect(files).toContain("idx/sub/one.ts");
    expect(files).toContain("idx/.gitignore");
    expect(files).toContain("idx/.hidden");
    expect(files).not.toContain("idx/node_modules/x/i.js");
    expect(files).not.toContain("idx/build/out.js");
    expect(files.some((f) => f.includes(".git/"))).toBe(false);
    expect(files.every((f) => !f.startsWith("./"))).toBe(true);
    expect(limitHit).toBeUndefined();
  });
});

describe("another user", () => {
  it("gets 404 for the search, its cancel and the file index of a workspace not theirs", async () => {
    const mallory = await accessUser("mallory@example.com");
    for (const path of [`/api/workspaces/${id}/search?q=needle`, `/api/workspaces/${id}/files/index`]) {
      const response = await api(path, { headers: mallory });
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe("NOT_FOUND");
    }
    const cancel = await api(`/api/workspaces/${id}/search?client=page-12345678`, {
      method: "DELETE",
      headers: mallory,
    });
    expect(cancel.status).toBe(404);
    // Without a session at all: 401.
    expect((await api(`/api/workspaces/${id}/search?q=needle`)).status).toBe(401);
  });
});
