import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HELPER_SCRIPT } from "./helper-script";

/**
 * The file helper run by this machine's python3 against a scratch folder
 * standing in for /workspace, once with openat2 and once with the
 * component-by-component walk that kernels without it get.
 */
const scratch = mkdtempSync(join(tmpdir(), "files-helper-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Python run before the helper: libc.syscall (openat2's only way in) fails with ENOSYS, as on a kernel without it. */
const KERNEL_WITHOUT_OPENAT2 = `import ctypes, errno
class _NoOpenat2:
    def __init__(self, real): self._real = real
    def __getattr__(self, name): return getattr(self._real, name)
    def syscall(self, *args):
        ctypes.set_errno(errno.ENOSYS)
        return -1
_real_cdll = ctypes.CDLL
ctypes.CDLL = lambda *a, **k: _NoOpenat2(_real_cdll(*a, **k))
`;

type Result = { status: number; stdout: Buffer; error?: { code: string; detail: string } };

/** The helper's `op` on `args` beneath `root`; a failure's `{code, detail}` is its stderr's last line. */
function runHelper(env: NodeJS.ProcessEnv, op: string, root: string, args: string[], stdin = ""): Result {
  const run = spawnSync("python3", ["-c", HELPER_SCRIPT, op, root, ...args], { input: stdin, env });
  const last = run.stderr.toString().trim().split("\n").pop() ?? "";
  return {
    status: run.status ?? -1,
    stdout: run.stdout,
    ...(run.status === 0 ? {} : { error: JSON.parse(last) }),
  };
}

const OUTSIDE = { code: "EXDEV", detail: "Resolves outside the workspace through a symbolic link" };

// Every call starts python3, which takes a second or more on a loaded shared machine (the race test, with more
// starts, has its own): a time limit, not an assertion, so a generous one.
describe.each(["openat2", "walk"])("the file helper (%s)", { timeout: 300_000 }, (resolve) => {
  let root: string;
  let outside: string;
  const env = { ...process.env, CLOUD_IDE_FILES_RESOLVE: resolve };

  const helper = (op: string, args: string[], stdin = ""): Result => runHelper(env, op, root, args, stdin);
  const at = (path: string) => join(root, path);
  const read = (path: string) => {
    const result = helper("read", [at(path)]);
    return result.status === 0 ? result.stdout.subarray(1).toString() : result.error;
  };

  beforeEach(() => {
    const base = mkdtempSync(join(scratch, `${resolve}-`));
    root = join(base, "workspace");
    outside = join(base, "outside");
    mkdirSync(join(root, "src/deep"), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(root, "src/a.txt"), "inside");
    writeFileSync(join(outside, "secret"), "outside");
  });

  it(`knows which way it resolved: ${resolve === "openat2" ? "openat2 or a failure, never the walk" : "the walk, without openat2"}`, () => {
    // The same helper on a kernel that refuses openat2 (ENOSYS from every syscall() call).
    const refusing = (path: string) => {
      const run = spawnSync("python3", ["-c", KERNEL_WITHOUT_OPENAT2 + HELPER_SCRIPT, "read", root, at(path)], { env });
      return run.status === 0
        ? run.stdout.subarray(1).toString()
        : JSON.parse(run.stderr.toString().trim().split("\n").pop() ?? "");
    };
    if (resolve === "openat2") {
      // Required, it fails there rather than walking: so every other test of this variant ran openat2.
      expect(refusing("src/a.txt")).toMatchObject({ code: "ENOSYS", detail: expect.stringContaining("openat2") });
    } else {
      expect(refusing("src/a.txt")).toBe("inside");
    }
    expect(read("src/a.txt")).toBe("inside");
  });

  it("follows links that stay in the workspace, relative or absolute", () => {
    symlinkSync("src/a.txt", at("rel"));
    symlinkSync(at("src/a.txt"), at("abs"));
    symlinkSync("../a.txt", at("src/deep/up"));
    symlinkSync(at("src"), at("srcdir"));
    expect(read("rel")).toBe("inside");
    expect(read("abs")).toBe("inside");
    expect(read("src/deep/up")).toBe("inside");
    expect(read("srcdir/deep/up")).toBe("inside");
    expect(read("srcdir/../src/a.txt")).toBe("inside");
    const listing = JSON.parse(helper("list", [at("srcdir")]).stdout.toString());
    expect(listing.entries.map((e: { name: string }) => e.name).sort()).toEqual(["a.txt", "deep"]);
  });

  it("lists entries in the file tree's types: a fifo or a socket is a file, a link is itself", () => {
    expect(spawnSync("mkfifo", [at("src/pipe")]).status).toBe(0);
    symlinkSync("a.txt", at("src/link"));
    const listing = JSON.parse(helper("list", [at("src")]).stdout.toString()) as {
      entries: { name: string; type: string; size: number; modifiedAt: number }[];
    };
    const types = Object.fromEntries(listing.entries.map((e) => [e.name, e.type]));
    expect(types).toEqual({ "a.txt": "file", deep: "directory", link: "symlink", pipe: "file" });
    expect(listing.entries.find((e) => e.name === "a.txt")).toMatchObject({ size: 6 });
    // readdir, the 1.x-shaped listing, keeps the kernel's types.
    const readdir = JSON.parse(helper("readdir", [at("src")]).stdout.toString()) as {
      entries: { name: string; type: string }[];
    };
    expect(readdir.entries.find((e) => e.name === "pipe")?.type).toBe("fifo");
  });

  it("refuses every way out: absolute and relative links, links in the middle, '..' past the root", () => {
    symlinkSync(join(outside, "secret"), at("abs-out"));
    symlinkSync("../outside/secret", at("rel-out"));
    symlinkSync(outside, at("dir-out"));
    symlinkSync("../../../outside", at("src/deep/far-out"));
    for (const path of [
      "abs-out",
      "rel-out",
      "dir-out/secret",
      "src/deep/far-out/secret",
      "src/../../outside/secret",
    ]) {
      expect(read(path), path).toEqual(OUTSIDE);
    }
    expect(helper("list", [at("dir-out")]).error).toEqual(OUTSIDE);
    expect(helper("stat", [at("abs-out")]).error).toEqual(OUTSIDE);
    expect(helper("archive", [at("dir-out")]).error).toEqual(OUTSIDE);
    expect(helper("write", [at("dir-out/new")], "x").error).toEqual(OUTSIDE);
    expect(helper("write-at", [at("rel-out"), "0"], "x").error).toEqual(OUTSIDE);
    expect(helper("mkdir", [at("dir-out/made"), "1"]).error).toEqual(OUTSIDE);
    expect(helper("mkdir", [at("dir-out/made"), "0"]).error).toEqual(OUTSIDE);
    expect(helper("rename", [at("src/a.txt"), at("dir-out/a.txt"), "1"]).error).toEqual(OUTSIDE);
    expect(helper("rename", [at("dir-out/secret"), at("stolen"), "0"]).error).toEqual(OUTSIDE);
    expect(helper("remove", [at("dir-out/secret"), "0", "0"]).error).toEqual(OUTSIDE);
    expect(helper("save", [at(".t.save-1"), at("abs-out"), ""], "x").error).toEqual(OUTSIDE);
    expect(helper("save", [at("dir-out/.t"), at("src/a.txt"), ""], "x").error).toEqual(OUTSIDE);
    expect(helper("read", ["/etc/hostname"]).error).toEqual(OUTSIDE);
    expect(readFileSync(join(outside, "secret"), "utf8")).toBe("outside");
    expect(existsSync(join(outside, "new")) || existsSync(join(outside, "made")) || existsSync(at("stolen"))).toBe(
      false,
    );
    expect(existsSync(at(".t.save-1"))).toBe(false);
    // The link itself lives in the workspace: it can be looked at and removed, never its target.
    expect(JSON.parse(helper("lstat", [at("dir-out")]).stdout.toString()).type).toBe("symlink");
    expect(helper("remove", [at("dir-out"), "1", "0"]).status).toBe(0);
    expect(existsSync(join(outside, "secret"))).toBe(true);
  });

  it("saves atomically through a link onto its target, with etag and must-not-exist checks", () => {
    symlinkSync("src/a.txt", at("link"));
    const stat = JSON.parse(helper("stat", [at("link")]).stdout.toString());
    expect(stat.type).toBe("file");
    const saved = helper("save", [at(".link.save-1"), at("link"), stat.etag], "new");
    expect(saved.status).toBe(0);
    expect(readFileSync(at("src/a.txt"), "utf8")).toBe("new");
    expect(lstatSync(at("link")).isSymbolicLink()).toBe(true);
    expect(existsSync(at(".link.save-1"))).toBe(false);
    // The old etag no longer matches: nothing is written and the temporary file goes.
    expect(helper("save", [at(".link.save-2"), at("link"), stat.etag], "lost").error?.code).toBe("ESTALE");
    expect(readFileSync(at("src/a.txt"), "utf8")).toBe("new");
    expect(existsSync(at(".link.save-2"))).toBe(false);
    // "-": a name that exists, even as a link to nowhere, is not replaced.
    symlinkSync("nowhere", at("dangling"));
    expect(helper("save", [at(".d.save-3"), at("dangling"), "-"], "x").error?.code).toBe("EEXIST");
    expect(helper("save", [at(".n.save-4"), at("fresh.txt"), "-"], "x").status).toBe(0);
    expect(readFileSync(at("fresh.txt"), "utf8")).toBe("x");
    // An upload's staged file committed with commit.
    expect(helper("write-at", [at("src/.up"), "0"], "ab").status).toBe(0);
    expect(helper("write-at", [at("src/.up"), "2"], "cd").status).toBe(0);
    expect(helper("write-at", [at("src/.up"), "9"], "x").error?.detail).toMatch(/fewer than the offset 9/);
    expect(helper("commit", [at("src/.up"), at("src/up.txt"), ""]).status).toBe(0);
    expect(readFileSync(at("src/up.txt"), "utf8")).toBe("abcd");
  });

  it("keeps the Linux errors of mkdir, rename, remove and read", () => {
    expect(helper("mkdir", [at("a/b/c"), "1"]).status).toBe(0);
    expect(helper("mkdir", [at("a/b/c"), "1"]).status).toBe(0);
    expect(helper("mkdir", [at("a/b"), "0"]).error?.code).toBe("EEXIST");
    expect(helper("mkdir", [at("src/a.txt"), "1"]).error?.code).toBe("EEXIST");
    expect(helper("mkdir", [at("src/a.txt/x"), "1"]).error?.code).toBe("ENOTDIR");
    expect(helper("mkdir", [at("none/x"), "0"]).error?.code).toBe("ENOENT");
    writeFileSync(at("b.txt"), "b");
    expect(helper("rename", [at("src/a.txt"), at("b.txt"), "1"]).error?.code).toBe("EEXIST");
    expect(helper("rename", [at("src/a.txt"), at("b.txt"), "0"]).status).toBe(0);
    expect(readFileSync(at("b.txt"), "utf8")).toBe("inside");
    expect(helper("rename", [at("a"), at("src"), "0"]).error?.code).toBe("ENOTEMPTY");
    expect(helper("remove", [at("a"), "0", "0"]).error?.code).toBe("EISDIR");
    expect(helper("remove", [at("missing"), "0", "1"]).status).toBe(0);
    expect(helper("remove", [at("missing"), "0", "0"]).error?.code).toBe("ENOENT");
    expect(helper("remove", [at("a"), "1", "0"]).status).toBe(0);
    expect(existsSync(at("a"))).toBe(false);
    expect(read("src")).toMatchObject({ code: "EISDIR" });
    expect(read("b.txt/x")).toMatchObject({ code: "ENOTDIR" });
    expect(read("nothing")).toMatchObject({ code: "ENOENT" });
    expect(helper("list", [at("b.txt")]).error?.code).toBe("ENOTDIR");
  });

  it("archives a folder, and the workspace itself, under their own names", () => {
    const members = (path: string) => {
      const archive = helper("archive", [path]);
      expect(archive.status).toBe(0);
      const list = spawnSync("tar", ["-tzf", "-"], { input: archive.stdout.subarray(1) });
      return list.stdout.toString().trim().split("\n").sort();
    };
    expect(members(at("src"))).toEqual(["src/", "src/a.txt", "src/deep/"]);
    expect(members(root)).toContain("workspace/src/a.txt");
  });

  it("never reads or writes outside while a link flips between a file inside and one outside", async () => {
    // A second process swaps `race/target` atomically, as fast as it can.
    mkdirSync(at("race"));
    const flipper: ChildProcess = spawn("python3", [
      "-c",
      `import os, sys
d = sys.argv[1]
for i in range(200000):
    os.symlink(sys.argv[2] if i % 2 else "../src/a.txt", d + "/t.new")
    os.replace(d + "/t.new", d + "/target")`,
      at("race"),
      join(outside, "secret"),
    ]);
    const run = (op: string, args: string[], stdin = "") =>
      new Promise<Result>((done) => {
        const child = spawn("python3", ["-c", HELPER_SCRIPT, op, root, ...args], { env });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on("data", (b: Buffer) => out.push(b));
        child.stderr.on("data", (b: Buffer) => err.push(b));
        child.stdin.end(stdin);
        child.on("close", (status) => {
          const last = Buffer.concat(err).toString().trim().split("\n").pop() ?? "";
          done({ status: status ?? -1, stdout: Buffer.concat(out), ...(status ? { error: JSON.parse(last) } : {}) });
        });
      });
    try {
      while (!existsSync(at("race/target"))) await new Promise((resolve) => setTimeout(resolve, 10));
      const outcomes = { inside: 0, refused: 0 };
      for (let round = 0; round < 8; round++) {
        const reads = Array.from({ length: 6 }, () => run("read", [at("race/target")]));
        const writes = Array.from({ length: 3 }, (_, i) =>
          run("save", [at(`race/.target.save-${round}${i}`), at("race/target"), ""], "written"),
        );
        const uploads = Array.from({ length: 3 }, (_, i) => run("write-at", [at("race/target"), "0"], `up${i}`));
        for (const result of await Promise.all([...reads, ...writes, ...uploads])) {
          expect(result.stdout.toString()).not.toContain("outside");
          if (result.status === 0) outcomes.inside++;
          else {
            expect(result.error?.code, JSON.stringify(result.error)).toMatch(/^(EXDEV|ELOOP)$/);
            outcomes.refused++;
          }
        }
      }
      expect(readFileSync(join(outside, "secret"), "utf8")).toBe("outside");
      expect(readdirSync(outside)).toEqual(["secret"]);
      expect(outcomes.inside + outcomes.refused).toBe(96);
    } finally {
      flipper.kill();
    }
  }, 600_000); // 96 python3 starts beside the flipper took 186 s at a load of 24 on 2 cores
});

/**
 * sandbox/list-dir.c, built here with this machine's C compiler as the image
 * builds it, against the Python listing it stands in for: the same entries,
 * types, sizes and times, the same refusal of a name that is not UTF-8.
 */
describe("the listing in C", { timeout: 300_000 }, () => {
  const base = mkdtempSync(join(scratch, "native-"));
  const root = join(base, "workspace");
  const library = join(base, "list-dir.so");

  const list = (folder: string, lister: "c" | "python") => {
    const env = { ...process.env, CLOUD_IDE_LIST_LIBRARY: lister === "c" ? library : join(base, "absent.so") };
    const { status, stdout, error } = runHelper(env, "list", root, [join(root, folder)]);
    return status === 0 ? { bytes: stdout } : { error };
  };
  const entries = (bytes: Buffer | undefined) =>
    (JSON.parse(String(bytes)).entries as { name: string; type: string }[]).sort((a, b) => (a.name < b.name ? -1 : 1));
  const nameBytes = (folder: string, name: number[]) =>
    Buffer.concat([Buffer.from(join(root, folder, "/")), Buffer.from(name)]);

  beforeAll(() => {
    // As the Dockerfile builds it, warnings as errors.
    const source = join(__dirname, "../../sandbox/list-dir.c");
    const build = spawnSync("cc", ["-O2", "-Wall", "-Werror", "-shared", "-fPIC", "-o", library, source]);
    if (build.status !== 0) throw new Error(`cc failed: ${build.error ?? build.stderr}`);
  });

  it("lists what the Python lists, with names as UTF-8 where Python escapes them", () => {
    mkdirSync(join(root, "mixed/sub"), { recursive: true });
    writeFileSync(join(root, "mixed/a.txt"), "inside");
    symlinkSync("a.txt", join(root, "mixed/link"));
    expect(spawnSync("mkfifo", [join(root, "mixed/pipe")]).status).toBe(0);
    for (const name of ['quo"te', "back\\slash", "new\nline", "tab\t\u0001\u001f\u007f", "café", "🙂 emoji"]) {
      writeFileSync(join(root, "mixed", name), name);
    }
    const c = list("mixed", "c");
    const python = list("mixed", "python");
    expect(c.error).toBeUndefined();
    expect(entries(c.bytes)).toEqual(entries(python.bytes));
    expect(entries(c.bytes).map((e) => [e.name, e.type])).toContainEqual(["pipe", "file"]);
    expect(entries(c.bytes)).toHaveLength(10);
    // Python writes é as \u00e9: the raw byte says the C ran.
    expect(c.bytes?.includes(Buffer.from("café"))).toBe(true);
    expect(python.bytes?.includes(Buffer.from("café"))).toBe(false);
  });

  it("lists 5,000 entries, past the first buffer", () => {
    mkdirSync(join(root, "many"), { recursive: true });
    for (let i = 0; i < 5000; i++) writeFileSync(join(root, "many", `entry-with-a-longer-name-${i}`), "");
    expect(entries(list("many", "c").bytes)).toEqual(entries(list("many", "python").bytes));
  });

  it.each([
    ["a lone byte past ASCII", [0xff]],
    ["an overlong slash", [0xc0, 0xaf]],
    ["a surrogate", [0xed, 0xa0, 0x80]],
    ["past U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
    ["a character cut short", [0x61, 0xe2, 0x82]],
  ])("refuses a name that is not UTF-8 as the Python does: %s", (_, name) => {
    const folder = `bad-${name.join("-")}`;
    mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, folder, "fine"), "");
    writeFileSync(nameBytes(folder, name), "");
    const c = list(folder, "c");
    expect(c.error).toEqual({ code: "EILSEQ", detail: expect.stringContaining("multibyte") });
    expect(c.error).toEqual(list(folder, "python").error);
  });

  it("accepts the longest UTF-8 forms at the edges", () => {
    mkdirSync(join(root, "edges"), { recursive: true });
    for (const name of [
      [0xc2, 0x80],
      [0xe0, 0xa0, 0x80],
      [0xed, 0x9f, 0xbf],
      [0xf0, 0x90, 0x80, 0x80],
      [0xf4, 0x8f, 0xbf, 0xbf],
    ]) {
      writeFileSync(nameBytes("edges", name), "");
    }
    const c = list("edges", "c");
    expect(c.error).toBeUndefined();
    expect(entries(c.bytes)).toEqual(entries(list("edges", "python").bytes));
    expect(entries(c.bytes)).toHaveLength(5);
  });
});
