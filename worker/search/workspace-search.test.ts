import { afterEach, describe, expect, it, vi } from "vitest";
import type { CommandOptions, CommandProcess, SpawnedProcess } from "../sandbox/sandbox";
import { parseSearchQuery } from "./search-query";
import { WorkspaceSearch } from "./workspace-search";

/**
 * The Durable Object's side of a search over a stand-in sandbox whose
 * processes print what the test gives them (the helper and ripgrep are
 * tested for real in search-script.test.ts and the integration tests).
 */
function fakeSandbox() {
  const spawned: {
    argv: string[];
    kill: ReturnType<typeof vi.fn>;
    write: (text: string) => void;
    end: (code?: number) => void;
  }[] = [];
  const sandbox = {
    spawn: vi.fn(async (argv: string[]): Promise<SpawnedProcess> => {
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      let exit!: (code: number) => void;
      const stdout = new ReadableStream<Uint8Array>({
        start: (c) => {
          controller = c;
        },
      });
      const exitCode = new Promise<number>((resolve) => {
        exit = resolve;
      });
      const kill = vi.fn(async () => {});
      spawned.push({
        argv,
        kill,
        write: (text) => controller.enqueue(new TextEncoder().encode(text)),
        end: (code = 0) => {
          controller.close();
          exit(code);
        },
      });
      return { stdout, exitCode, kill } as unknown as SpawnedProcess;
    }),
    // A command through the agent: its output, its exit code, and its abort (here: kill).
    command: vi.fn(async (argv: string[], options?: CommandOptions): Promise<CommandProcess> => {
      const { stdout, exitCode, kill } = (await sandbox.spawn(argv)) as unknown as {
        stdout: ReadableStream<Uint8Array>;
        exitCode: Promise<number>;
        kill: () => Promise<void>;
      };
      options?.signal?.addEventListener("abort", () => void kill());
      return { output: stdout, exitCode };
    }),
  };
  return { search: new WorkspaceSearch(sandbox), spawned };
}

const query = (q: string) => parseSearchQuery(new URLSearchParams(q));

describe("a search in the Durable Object", () => {
  afterEach(() => vi.useRealTimers());

  it("answers once the helper says it started, passing on only what follows", async () => {
    const { search, spawned } = fakeSandbox();
    const answer = search.search(query("q=needle"));
    await vi.waitFor(() => expect(spawned).toHaveLength(1));
    spawned[0]?.write('{"type":"start"}\n{"type":"file","path":"a","matches":[]}\n');
    const response = await answer;
    expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    spawned[0]?.write('{"type":"done","files":1,"matches":0,"elapsedMs":1}\n');
    spawned[0]?.end();
    expect(await response.text()).toBe(
      '{"type":"file","path":"a","matches":[]}\n{"type":"done","files":1,"matches":0,"elapsedMs":1}\n',
    );
    // A literal without globs cannot be refused: no check first.
    expect(JSON.parse(spawned[0]?.argv.at(-1) ?? "{}").check).toBeUndefined();
  });

  it("refuses what ripgrep refused with 400 INVALID_SEARCH, and a container without ripgrep with INVALID_STATE", async () => {
    const { search, spawned } = fakeSandbox();
    const refused = search.search(query("q=a(&regex=1"));
    await vi.waitFor(() => expect(spawned).toHaveLength(1));
    expect(JSON.parse(spawned[0]?.argv.at(-1) ?? "{}").check.at(-1)).toBe("/dev/null");
    spawned[0]?.write('{"type":"error","kind":"regex","message":"regex parse error: unclosed group"}\n');
    await expect(refused).rejects.toMatchObject({
      code: "INVALID_SEARCH",
      message: expect.stringMatching(/regular expression does not compile.*unclosed group/),
    });
    expect(spawned[0]?.kill).toHaveBeenCalled();

    const missing = search.search(query("q=a"));
    await vi.waitFor(() => expect(spawned).toHaveLength(2));
    spawned[1]?.write('{"type":"error","kind":"missing","message":"No such file"}\n');
    await expect(missing).rejects.toMatchObject({
      code: "INVALID_STATE",
      message: expect.stringMatching(/apt-get install/),
    });
  });

  it("kills ripgrep when the client cancels the stream, when the same client searches again, and on cancel()", async () => {
    const { search, spawned } = fakeSandbox();
    const start = async (client?: string) => {
      const answer = search.search(query("q=x"), client);
      await vi.waitFor(() => expect(spawned.length).toBeGreaterThan(0));
      spawned.at(-1)?.write('{"type":"start"}\n');
      return answer;
    };
    const first = await start();
    await first.body?.cancel();
    expect(spawned[0]?.kill).toHaveBeenCalledOnce();

    await start("page-aaaaaaaa");
    const count = spawned.length;
    const again = search.search(query("q=y"), "page-aaaaaaaa");
    await vi.waitFor(() => expect(spawned.length).toBe(count + 1));
    expect(spawned[count - 1]?.kill).toHaveBeenCalledOnce();
    spawned.at(-1)?.write('{"type":"start"}\n');
    await again;
    search.cancel("page-aaaaaaaa");
    expect(spawned.at(-1)?.kill).toHaveBeenCalledOnce();
  });

  it("kills a search still running well past the time limit (a reader that stopped reading)", async () => {
    vi.useFakeTimers();
    const { search, spawned } = fakeSandbox();
    const answer = search.search(query("q=x"));
    await vi.waitFor(() => expect(spawned).toHaveLength(1));
    spawned[0]?.write('{"type":"start"}\n');
    await answer;
    await vi.advanceTimersByTimeAsync(34_000);
    expect(spawned[0]?.kill).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(spawned[0]?.kill).toHaveBeenCalledOnce();
  });

  it("lists files NUL-separated without ./, and stops at the limit", async () => {
    const { search, spawned } = fakeSandbox();
    const index = search.fileIndex();
    await vi.waitFor(() => expect(spawned).toHaveLength(1));
    spawned[0]?.write("./a.ts\0./src/b");
    spawned[0]?.write(".ts\0");
    spawned[0]?.end(0);
    expect(await index).toEqual({ files: ["a.ts", "src/b.ts"] });
    // ripgrep in /workspace, its complaints kept out of the list.
    expect(spawned[0]?.argv.slice(0, 5)).toEqual(["sh", "-c", 'cd "$0" && exec "$@" 2>/dev/null', "/workspace", "rg"]);

    const missing = search.fileIndex();
    await vi.waitFor(() => expect(spawned).toHaveLength(2));
    spawned[1]?.end(127);
    await expect(missing).rejects.toMatchObject({ code: "INVALID_STATE" });

    const huge = search.fileIndex();
    await vi.waitFor(() => expect(spawned).toHaveLength(3));
    spawned[2]?.write(`${"f\0".repeat(100_001)}`);
    expect(await huge).toMatchObject({ limitHit: true, files: { length: 100_000 } });
    expect(spawned[2]?.kill).toHaveBeenCalled();
  });
});
