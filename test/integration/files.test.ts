import { execFileSync } from "node:child_process";
import { gunzipSync } from "node:zlib";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DirectoryListing, FileChange, FileInfo } from "../../protocol/files";
import { filesUrl, putFile, shell, workspaceContainer } from "../support/files";
import { createWorkspace, ownerApi } from "../support/session";

let id: string;
let container: string;

beforeAll(async () => {
  id = await createWorkspace("files test");
  container = await workspaceContainer(id);
});

const get = (suffix: string, query: Record<string, string>) => ownerApi(filesUrl(id, suffix, query));
const json = async (response: Response) => (await response.json()) as Record<string, unknown>;

describe("the files API", () => {
  it("lists a folder with name, type, size and modification time", async () => {
    shell(
      container,
      "mkdir -p /workspace/list/sub && printf 12345 > /workspace/list/five.txt && ln -s five.txt /workspace/list/link && mkfifo /workspace/list/pipe && touch /workspace/list/café",
    );
    const response = await get("", { path: "list" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const bytes = Buffer.from(await response.arrayBuffer());
    // The image's lister in C (sandbox/list-dir.c) wrote it: it writes é as UTF-8, the Python as \u00e9.
    expect(bytes.includes(Buffer.from('"café"'))).toBe(true);
    const { entries } = JSON.parse(bytes.toString()) as DirectoryListing;
    const byName = Object.fromEntries(entries.map((e) => [e.name, e]));
    expect(Object.keys(byName).sort()).toEqual(["café", "five.txt", "link", "pipe", "sub"]);
    // Exactly the API's fields, in the tree's types: a fifo (a device, a socket) is a file.
    expect(Object.keys(byName.pipe ?? {}).sort()).toEqual(["modifiedAt", "name", "size", "type"]);
    expect(byName.pipe?.type).toBe("file");
    expect(byName["five.txt"]).toMatchObject({ type: "file", size: 5 });
    expect(byName.sub?.type).toBe("directory");
    expect(byName.link?.type).toBe("symlink");
    const mtime = Number(shell(container, "stat -c %Y /workspace/list/five.txt")) * 1000;
    expect(Math.abs((byName["five.txt"]?.modifiedAt ?? 0) - mtime)).toBeLessThan(1000);
    // "." is /workspace itself.
    const root = (await (await get("", { path: "." })).json()) as DirectoryListing;
    expect(root.entries.map((e) => e.name)).toContain("list");
  });

  it("reads a file's bytes with an ETag and saves atomically, refusing a stale If-Match with 412", async () => {
    const bytes = new Uint8Array(256).map((_, i) => i);
    expect((await putFile(id, "bin/all.bin", bytes)).status).toBe(200);
    const read = await get("/content", { path: "bin/all.bin" });
    expect(read.status).toBe(200);
    expect(new Uint8Array(await read.arrayBuffer())).toEqual(bytes);
    const etag = read.headers.get("etag") as string;
    expect(etag).toBeTruthy();
    expect(shell(container, "od -An -tx1 -v /workspace/bin/all.bin | tr -d ' \\n' | head -c 12")).toBe("000102030405");

    const save = await ownerApi(filesUrl(id, "/content", { path: "bin/all.bin" }), {
      method: "PUT",
      headers: { "If-Match": etag },
      body: "saved",
    });
    expect(save.status).toBe(200);
    const saved = (await save.json()) as FileInfo;
    expect(saved.etag).not.toBe(etag);
    expect(shell(container, "cat /workspace/bin/all.bin")).toBe("saved");
    // No temporary files are left beside it.
    expect(shell(container, "ls -A /workspace/bin")).toBe("all.bin");

    // The terminal changes it: the old etag no longer matches.
    shell(container, "echo terminal > /workspace/bin/all.bin");
    const stale = await ownerApi(filesUrl(id, "/content", { path: "bin/all.bin" }), {
      method: "PUT",
      headers: { "If-Match": saved.etag },
      body: "lost?",
    });
    expect(stale.status).toBe(412);
    expect(await json(stale)).toMatchObject({ code: "FILE_CHANGED" });
    expect(shell(container, "cat /workspace/bin/all.bin")).toBe("terminal");
    expect(shell(container, "ls -A /workspace/bin")).toBe("all.bin");

    const create = await ownerApi(filesUrl(id, "/content", { path: "bin/all.bin" }), {
      method: "PUT",
      headers: { "If-None-Match": "*" },
      body: "x",
    });
    expect(create.status).toBe(412);
    expect(await json(create)).toMatchObject({ code: "FILE_EXISTS" });
  });

  it("answers a read with If-None-Match of the current version 304 without the bytes, and the bytes once it changed", async () => {
    await putFile(id, "cond/a.txt", "first");
    const read = await get("/content", { path: "cond/a.txt" });
    const etag = read.headers.get("etag") as string;
    expect(await read.text()).toBe("first");
    const conditional = (held: string) =>
      ownerApi(filesUrl(id, "/content", { path: "cond/a.txt" }), { headers: { "If-None-Match": held } });

    const unchanged = await conditional(etag);
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get("etag")).toBe(etag);
    expect(await unchanged.text()).toBe("");

    shell(container, "printf second > /workspace/cond/a.txt");
    const changed = await conditional(etag);
    expect(changed.status).toBe(200);
    expect(await changed.text()).toBe("second");
    const now = changed.headers.get("etag") as string;
    expect(now).not.toBe(etag);
    expect((await conditional(now)).status).toBe(304);
    // A file that is gone answers 404 as an unconditional read does.
    shell(container, "rm /workspace/cond/a.txt");
    expect((await conditional(now)).status).toBe(404);
  });

  it("creates folders, moves and deletes", async () => {
    const mkdir = await ownerApi(filesUrl(id, "/mkdir", { path: "made/deep", parents: "1" }), { method: "POST" });
    expect(mkdir.status).toBe(201);
    expect(shell(container, "test -d /workspace/made/deep && echo yes")).toBe("yes");
    expect((await ownerApi(filesUrl(id, "/mkdir", { path: "made" }), { method: "POST" })).status).toBe(409);

    await putFile(id, "made/a.txt", "A");
    await putFile(id, "made/b.txt", "B");
    const move = (from: string, to: string, overwrite?: boolean) =>
      ownerApi(filesUrl(id, "/move"), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ from, to, overwrite }),
      });
    expect((await move("made/a.txt", "made/deep/a.txt")).status).toBe(200);
    expect(shell(container, "cat /workspace/made/deep/a.txt")).toBe("A");
    // An existing destination is not silently replaced.
    await putFile(id, "made/c.txt", "C");
    const clash = await move("made/b.txt", "made/c.txt");
    expect(clash.status).toBe(409);
    expect(await json(clash)).toMatchObject({ code: "FILE_EXISTS" });
    expect(shell(container, "cat /workspace/made/c.txt")).toBe("C");
    expect((await move("made/b.txt", "made/c.txt", true)).status).toBe(200);
    expect(shell(container, "cat /workspace/made/c.txt")).toBe("B");
    // A folder onto a non-empty folder: ENOTEMPTY.
    shell(container, "mkdir -p /workspace/made/empty");
    const notEmpty = await move("made/empty", "made/deep", true);
    expect(notEmpty.status).toBe(409);
    expect(await json(notEmpty)).toMatchObject({ code: "DIRECTORY_NOT_EMPTY" });

    const dir = await ownerApi(filesUrl(id, "", { path: "made" }), { method: "DELETE" });
    expect(dir.status).toBe(400);
    expect(await json(dir)).toMatchObject({ code: "IS_A_DIRECTORY" });
    expect((await ownerApi(filesUrl(id, "", { path: "made/c.txt" }), { method: "DELETE" })).status).toBe(204);
    expect((await ownerApi(filesUrl(id, "", { path: "made", recursive: "1" }), { method: "DELETE" })).status).toBe(204);
    expect(shell(container, "test -e /workspace/made && echo yes || echo no")).toBe("no");
  });

  it("maps Linux errors to HTTP: ENOENT 404, EISDIR and ENOTDIR 400", async () => {
    shell(container, "mkdir -p /workspace/errs && echo x > /workspace/errs/file");
    const cases: [string, Record<string, string>, number, string][] = [
      ["/content", { path: "errs/missing" }, 404, "FILE_NOT_FOUND"],
      ["", { path: "errs/missing-dir" }, 404, "FILE_NOT_FOUND"],
      ["/content", { path: "errs" }, 400, "IS_A_DIRECTORY"],
      ["", { path: "errs/file" }, 400, "NOT_A_DIRECTORY"],
      ["/content", { path: "errs/file/inside" }, 400, "NOT_A_DIRECTORY"],
    ];
    for (const [suffix, query, status, code] of cases) {
      const response = await get(suffix, query);
      expect(response.status, `${suffix} ${query.path}`).toBe(status);
      expect(await json(response)).toMatchObject({ code, message: expect.any(String) });
    }
    const noParent = await ownerApi(filesUrl(id, "/content", { path: "errs/none/x.txt" }), {
      method: "PUT",
      body: "x",
    });
    expect(noParent.status).toBe(404);
  });

  it("uploads in chunks and downloads a file and a folder archive", async () => {
    const token = "up12345678";
    const first = await ownerApi(filesUrl(id, "/upload", { path: "up/dir/big.txt", upload: token, offset: "0" }), {
      method: "PUT",
      body: "first-",
    });
    expect(first.status).toBe(200);
    expect(await json(first)).toMatchObject({ received: 6 });
    // Not visible under its name before the last chunk.
    expect(shell(container, "test -e /workspace/up/dir/big.txt && echo yes || echo no")).toBe("no");
    // A chunk sent again (its answer was lost) is written at its offset again: harmless.
    const again = await ownerApi(filesUrl(id, "/upload", { path: "up/dir/big.txt", upload: token, offset: "0" }), {
      method: "PUT",
      body: "first-",
    });
    expect(await json(again)).toMatchObject({ received: 6 });
    // A chunk past the end (one went missing) is refused rather than padded with zeros.
    const gap = await ownerApi(filesUrl(id, "/upload", { path: "up/dir/big.txt", upload: token, offset: "9" }), {
      method: "PUT",
      body: "lost",
    });
    expect(gap.status).toBe(400);
    expect(await json(gap)).toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/fewer than the offset 9/),
    });
    const last = await ownerApi(
      filesUrl(id, "/upload", { path: "up/dir/big.txt", upload: token, offset: "6", final: "1" }),
      { method: "PUT", body: "second" },
    );
    expect(last.status).toBe(201);
    expect(shell(container, "cat /workspace/up/dir/big.txt")).toBe("first-second");
    expect(shell(container, "ls -A /workspace/up/dir")).toBe("big.txt");
    // The last chunk again, after it landed: no upload is in progress any more.
    const late = await ownerApi(
      filesUrl(id, "/upload", { path: "up/dir/big.txt", upload: token, offset: "6", final: "1" }),
      { method: "PUT", body: "second" },
    );
    expect(late.status).toBe(404);
    expect(await json(late)).toMatchObject({ code: "UPLOAD_NOT_FOUND" });
    expect(shell(container, "cat /workspace/up/dir/big.txt")).toBe("first-second");

    const file = await get("/download", { path: "up/dir/big.txt" });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toContain('filename="big.txt"');
    expect(await file.text()).toBe("first-second");

    const folder = await get("/download", { path: "up" });
    expect(folder.status).toBe(200);
    expect(folder.headers.get("content-type")).toBe("application/gzip");
    const tar = gunzipSync(Buffer.from(await folder.arrayBuffer())).toString("latin1");
    expect(tar).toContain("up/dir/big.txt");
    expect(tar).toContain("first-second");
  });

  // The stream stalled now and then in full runs. Causes found and fixed: a
  // workspace's first checkpoint froze its container with `docker commit` a
  // minute after its start, and another dev server's clean-up could remove
  // this run's containers. No retry: a stalled stream fails and says what it saw.
  it("streams changes made in the container as server-sent events", { timeout: 60_000 }, async () => {
    const dir = `watched-${Math.random().toString(36).slice(2, 8)}`;
    // A folder made and filled at once can miss inotify events inside it (the tree lists new folders afresh).
    shell(container, `mkdir -p /workspace/${dir}`);
    const controller = new AbortController();
    const started = Date.now();
    const noHeaders = setTimeout(() => controller.abort(new Error("no response headers within 20 s")), 20_000);
    const response = await ownerApi(filesUrl(id, "/watch"), { signal: controller.signal }).finally(() =>
      clearTimeout(noHeaders),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const headersAfter = Date.now() - started;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const until = async (what: string, predicate: () => boolean) => {
      const deadline = Date.now() + 20_000;
      while (!predicate()) {
        const left = deadline - Date.now();
        const next = await Promise.race([
          reader.read(),
          new Promise<"late">((resolve) => setTimeout(() => resolve("late"), Math.max(left, 0))),
        ]);
        if (next === "late") {
          const seen = text.replace(/^: +\n/, ": (padding)\n");
          throw new Error(`no ${what} within 20 s (headers after ${headersAfter} ms); the stream said: ${seen}`);
        }
        if (next.done) throw new Error(`stream ended: ${text}`);
        text += decoder.decode(next.value, { stream: true });
      }
    };
    try {
      await until("ready", () => text.includes("event: ready"));
      shell(container, `touch /workspace/${dir}/new.txt`);
      const changes = (): FileChange[] =>
        [...text.matchAll(/event: changes\ndata: (.*)\n/g)].flatMap((m) => JSON.parse(m[1] as string).changes);
      await until("created", () => changes().some((c) => c.path === `${dir}/new.txt`));
      expect(changes().find((c) => c.path === `${dir}/new.txt`)?.type).toBe("created");
      shell(container, `mv /workspace/${dir}/new.txt /workspace/${dir}/renamed.txt`);
      await until("moved", () => changes().some((c) => c.type === "moved"));
      expect(changes().find((c) => c.type === "moved")).toMatchObject({
        path: `${dir}/renamed.txt`,
        from: `${dir}/new.txt`,
      });
      shell(container, `rm /workspace/${dir}/renamed.txt`);
      await until("deleted", () => changes().some((c) => c.type === "deleted" && c.path === `${dir}/renamed.txt`));
      // node_modules is not watched.
      shell(
        container,
        `mkdir -p /workspace/node_modules/x && touch /workspace/node_modules/x/y && touch /workspace/${dir}/after`,
      );
      await until("after", () => changes().some((c) => c.path === `${dir}/after`));
      expect(changes().some((c) => c.path.startsWith("node_modules/"))).toBe(false);
    } finally {
      controller.abort();
    }
  });
});

describe("path attacks", () => {
  // Each attack has a real file to aim at, made here rather than by an earlier test.
  beforeEach(() => {
    shell(container, "mkdir -p /workspace/list && printf 12345 > /workspace/list/five.txt");
  });

  const attacks: [string, string][] = [
    ["empty", ""],
    ["absolute", "/etc/passwd"],
    ["parent", "../etc/passwd"],
    ["parent inside", "a/../../etc/passwd"],
    ["bare parent", ".."],
    ["NUL", "a\0b"],
    ["too long", `${"a/".repeat(2100)}x`],
    ["name too long", "n".repeat(256)],
  ];

  it("refuses empty, absolute, '..', NUL and over-long paths with 400 INVALID_PATH on every route", async () => {
    for (const [label, path] of attacks) {
      const requests: [string, RequestInit][] = [
        [filesUrl(id, "", { path }), {}],
        [filesUrl(id, "/content", { path }), {}],
        [filesUrl(id, "/content", { path }), { method: "PUT", body: "pwned" }],
        [filesUrl(id, "", { path }), { method: "DELETE" }],
        [filesUrl(id, "/mkdir", { path }), { method: "POST" }],
        [filesUrl(id, "/download", { path }), {}],
        [filesUrl(id, "/stat", { path }), {}],
        [filesUrl(id, "/upload", { path, upload: "abcdefgh12", offset: "0" }), { method: "PUT", body: "x" }],
        [
          filesUrl(id, "/move"),
          {
            method: "POST",
            body: JSON.stringify({ from: "list/five.txt", to: path }),
            headers: { "Content-Type": "application/json" },
          },
        ],
        [
          filesUrl(id, "/move"),
          {
            method: "POST",
            body: JSON.stringify({ from: path, to: "moved" }),
            headers: { "Content-Type": "application/json" },
          },
        ],
      ];
      for (const [url, init] of requests) {
        const response = await ownerApi(url, init);
        expect(response.status, `${label}: ${init.method ?? "GET"} ${url.slice(0, 120)}`).toBe(400);
        expect(await json(response)).toMatchObject({ code: "INVALID_PATH" });
      }
    }
    // Missing path parameter altogether.
    expect((await ownerApi(filesUrl(id, "/content"))).status).toBe(400);
    // Deleting the workspace itself is not a thing.
    const root = await ownerApi(filesUrl(id, "", { path: ".", recursive: "1" }), { method: "DELETE" });
    expect(root.status).toBe(400);
    expect(shell(container, "test -d /workspace && echo yes")).toBe("yes");
    expect(shell(container, "test -e /etc/passwd && echo yes")).toBe("yes");
  });

  it("refuses a symlink made in the terminal that points at /etc, for every operation", async () => {
    shell(container, "ln -sfn /etc /workspace/etc-link && ln -sfn /etc/hostname /workspace/host-link");
    const before = shell(container, "ls /etc | md5sum; md5sum /etc/hostname");
    const jsonType = { "Content-Type": "application/json" };
    const requests: [string, string, RequestInit][] = [
      ["list through", filesUrl(id, "", { path: "etc-link" }), {}],
      ["read through", filesUrl(id, "/content", { path: "etc-link/passwd" }), {}],
      ["read file link", filesUrl(id, "/content", { path: "host-link" }), {}],
      ["stat through", filesUrl(id, "/stat", { path: "etc-link/passwd" }), {}],
      ["write through", filesUrl(id, "/content", { path: "etc-link/pwned" }), { method: "PUT", body: "x" }],
      ["overwrite link target", filesUrl(id, "/content", { path: "host-link" }), { method: "PUT", body: "x" }],
      ["delete through", filesUrl(id, "", { path: "etc-link/hostname" }), { method: "DELETE" }],
      ["mkdir through", filesUrl(id, "/mkdir", { path: "etc-link/pwned" }), { method: "POST" }],
      ["download through", filesUrl(id, "/download", { path: "etc-link" }), {}],
      ["download file through", filesUrl(id, "/download", { path: "etc-link/passwd" }), {}],
      [
        "upload through",
        filesUrl(id, "/upload", { path: "etc-link/pwned", upload: "abcdefgh12", offset: "0", final: "1" }),
        { method: "PUT", body: "x" },
      ],
      [
        "move into",
        filesUrl(id, "/move"),
        { method: "POST", headers: jsonType, body: JSON.stringify({ from: "list/five.txt", to: "etc-link/five.txt" }) },
      ],
      [
        "move out of",
        filesUrl(id, "/move"),
        { method: "POST", headers: jsonType, body: JSON.stringify({ from: "etc-link/hostname", to: "stolen" }) },
      ],
    ];
    for (const [label, url, init] of requests) {
      const response = await ownerApi(url, init);
      expect(response.status, label).toBe(403);
      expect(await json(response), label).toMatchObject({ code: "PATH_OUTSIDE_WORKSPACE" });
    }
    expect(shell(container, "ls /etc | md5sum; md5sum /etc/hostname")).toBe(before);
    expect(shell(container, "test -e /workspace/stolen && echo yes || echo no")).toBe("no");
    expect(shell(container, "test -e /workspace/list/five.txt && test ! -e /etc/five.txt && echo kept")).toBe("kept");

    // The link itself lives in /workspace: it can be listed and removed (not its target).
    const listing = (await (await get("", { path: "." })).json()) as DirectoryListing;
    expect(listing.entries.find((e) => e.name === "etc-link")?.type).toBe("symlink");
    expect((await ownerApi(filesUrl(id, "", { path: "etc-link" }), { method: "DELETE" })).status).toBe(204);
    expect(shell(container, "test -d /etc && test ! -e /workspace/etc-link && echo ok")).toBe("ok");
  });
});

describe("the symlink race of the audit", () => {
  /**
   * A loop in the container (as a terminal would run it) swaps a link
   * atomically between something inside /workspace and something outside,
   * while reads, saves, uploads and folder downloads run in parallel. Each of
   * them must end inside or be refused: none may read or create anything
   * outside. The old helper checked a path, then opened it again by name.
   */
  const flip = (link: string, inside: string, outside: string, tag: string) =>
    execFileSync("docker", [
      "exec",
      "-d",
      container,
      "timeout",
      "120",
      "python3",
      "-c",
      `import os, sys
while True:
    for target in (sys.argv[2], sys.argv[3]):
        os.symlink(target, sys.argv[1] + ".new")
        os.replace(sys.argv[1] + ".new", sys.argv[1])`,
      link,
      inside,
      outside,
      tag,
    ]);
  // The bracket keeps pkill from matching the shell that runs it.
  const stopFlipping = (tag: string) => shell(container, `pkill -f -- '[${tag[0]}]${tag.slice(1)}' || true`);

  it("never reads /etc/hostname nor writes outside while race/target flips", { timeout: 180_000 }, async () => {
    const hostname = shell(container, "cat /etc/hostname");
    shell(
      container,
      "mkdir -p /workspace/race && echo inside > /workspace/race/inside.txt && rm -f /tmp/pwned-* && touch /tmp/outside-marker",
    );
    const etcBefore = shell(container, "ls /etc | md5sum; md5sum /etc/hostname");
    const tag = `flip-${Math.random().toString(36).slice(2)}`;
    flip("/workspace/race/target", "inside.txt", "/etc/hostname", tag);
    flip("/workspace/race/dir", "/workspace/race", "/tmp", `${tag}-dir`);
    try {
      await until(
        // `|| echo n`: until both loops made their links, the check fails, and shell() throws on a failure.
        () =>
          shell(container, "test -L /workspace/race/dir && test -L /workspace/race/target && echo y || echo n") === "y",
      );
      const outcomes: Record<string, number> = {};
      const count = (label: string, status: number) => {
        outcomes[`${label} ${status}`] = (outcomes[`${label} ${status}`] ?? 0) + 1;
      };
      for (let round = 0; round < 6; round++) {
        const reads = Array.from({ length: 12 }, async () => {
          const response = await get("/content", { path: "race/target" });
          const text = await response.text();
          expect(text).not.toContain(hostname);
          count("read", response.status);
          if (response.status !== 200) expect(JSON.parse(text).code).toBe("PATH_OUTSIDE_WORKSPACE");
        });
        const saves = Array.from({ length: 4 }, async (_, i) => {
          const response = await ownerApi(filesUrl(id, "/content", { path: `race/dir/pwned-${round}-${i}` }), {
            method: "PUT",
            body: "pwned",
          });
          count("save", response.status);
          expect([200, 403]).toContain(response.status);
        });
        const overwrites = Array.from({ length: 2 }, async () => {
          const response = await ownerApi(filesUrl(id, "/content", { path: "race/target" }), {
            method: "PUT",
            body: "saved inside",
          });
          count("overwrite", response.status);
          expect([200, 403]).toContain(response.status);
        });
        const uploads = Array.from({ length: 2 }, async (_, i) => {
          const response = await ownerApi(
            filesUrl(id, "/upload", {
              path: `race/dir/pwned-up-${round}-${i}`,
              upload: `race${round}x${i}ab`,
              offset: "0",
              final: "1",
            }),
            { method: "PUT", body: "pwned" },
          );
          count("upload", response.status);
          expect([201, 403]).toContain(response.status);
        });
        const downloads = Array.from({ length: 2 }, async () => {
          const response = await get("/download", { path: "race/dir" });
          count("download", response.status);
          if (response.status !== 200) return;
          const tar = gunzipSync(Buffer.from(await response.arrayBuffer())).toString("latin1");
          // Inside, the archive holds race/'s own files; /tmp's would bring its marker.
          expect(tar).toContain("inside.txt");
          expect(tar).not.toContain("outside-marker");
        });
        await Promise.all([...reads, ...saves, ...overwrites, ...uploads, ...downloads]);
      }
      // Both outcomes happened: the race was really run, and refused only when the link led out.
      expect(outcomes["read 200"], JSON.stringify(outcomes)).toBeGreaterThan(0);
      expect(outcomes["read 403"], JSON.stringify(outcomes)).toBeGreaterThan(0);
    } finally {
      stopFlipping(tag);
    }
    expect(shell(container, "ls /tmp | grep -c '^pwned' || true")).toBe("0");
    expect(shell(container, "ls /etc | md5sum; md5sum /etc/hostname")).toBe(etcBefore);
    expect(shell(container, "cat /etc/hostname")).toBe(hostname);
  });
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("the condition did not hold in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
