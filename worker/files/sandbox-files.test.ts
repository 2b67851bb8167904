import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AgentClient, type AgentConnection } from "../resident/agent-client";
import { AGENT_SCRIPT } from "../resident/agent-script";
import type { ExecOptions, Sandbox, SandboxProcess } from "../sandbox/sandbox";
import { Files } from "./sandbox-files";

/**
 * Files over this machine's python3 against a scratch folder standing in for
 * /workspace: through the resident agent when it starts, through the
 * per-call helper when it cannot, with the same answers and the same errors
 * either way (both run worker/resident/file-operations.ts).
 */
const scratch = mkdtempSync(join(tmpdir(), "files-either-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `exec` as the sandbox adapter offers it, by a local child process; counts the processes it started. */
function localExec() {
  const started: string[][] = [];
  const exec = async (argv: string[], options: ExecOptions = {}): Promise<SandboxProcess> => {
    started.push(argv);
    const child = spawn(argv[0] as string, argv.slice(1), { cwd: options.cwd ?? "/" });
    const exitCode = new Promise<number>((resolve) => child.once("close", (code) => resolve(code ?? 1)));
    if (options.stdin instanceof ReadableStream) {
      Readable.fromWeb(options.stdin as unknown as NodeReadableStream<Uint8Array>)
        .pipe(child.stdin)
        .on("error", () => {});
    } else child.stdin.end();
    const stdout = Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>;
    const stderr = Readable.toWeb(child.stderr) as unknown as ReadableStream<Uint8Array>;
    return {
      stdin: null,
      stdout,
      stderr,
      isPty: false,
      exitCode,
      output: async () => {
        const [out, err] = await Promise.all([new Response(stdout).arrayBuffer(), new Response(stderr).arrayBuffer()]);
        return { stdout: out, stderr: err, exitCode: await exitCode };
      },
      resize: () => {},
    };
  };
  return { exec: exec as Sandbox["exec"], started };
}

/** An agent launched as the sandbox adapter does (python3 -c SCRIPT ROOT), here by a local child process. */
function launcher(script: string, root: string) {
  return async (): Promise<AgentConnection> => {
    const child = spawn("python3", ["-c", script, root], { stdio: ["pipe", "pipe", "ignore"] });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    return {
      readable: Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
      writable: Writable.toWeb(child.stdin) as unknown as WritableStream<Uint8Array>,
      exited,
      kill: async () => {
        child.kill("SIGKILL");
      },
    };
  };
}

describe.each([
  { mode: "resident", script: AGENT_SCRIPT },
  // An agent that dies before it says HELLO: an image whose python cannot run it.
  { mode: "fallback", script: "import sys; sys.exit(3)" },
] as const)("Files with the agent $mode", { timeout: 120_000 }, ({ mode, script }) => {
  let root: string;
  let agent: AgentClient;
  let files: Files;
  let started: string[][];
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});

  beforeEach(() => {
    root = join(mkdtempSync(join(scratch, `${mode}-`)), "workspace");
    mkdirSync(join(root, "src"), { recursive: true });
    writeFileSync(join(root, "src/a.txt"), "inside");
    writeFileSync(join(root, "..", "secret"), "outside");
    symlinkSync(join(root, "..", "secret"), join(root, "out"));
    const sandbox = localExec();
    started = sandbox.started;
    agent = new AgentClient(launcher(script, root));
    files = new Files(sandbox, { confineTo: root, agent });
    logged.mockClear();
  });
  afterEach(() => agent.stop());

  it("saves, reads and lists, and refuses with the same Linux errors", async () => {
    const old = await files.stat(join(root, "src/a.txt"));
    const saved = await files.saveAtomically(
      join(root, "src/.a.txt.save-1"),
      join(root, "src/a.txt"),
      old.etag,
      "saved",
    );
    expect(saved).toMatchObject({ type: "file", size: 5n });
    expect(readFileSync(join(root, "src/a.txt"), "utf8")).toBe("saved");
    expect(await (await files.readFile(join(root, "src/a.txt"))).text()).toBe("saved");
    const listing = await files.listDirectory(join(root, "src"));
    expect(listing.entries.map((e) => e.name)).toEqual(["a.txt"]);

    await expect(files.stat(join(root, "missing"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(files.readFile(join(root, "out"))).rejects.toMatchObject({
      code: "EXDEV",
      message: expect.stringContaining("outside the workspace"),
    });
    await expect(
      files.saveAtomically(join(root, "src/.a.txt.save-2"), join(root, "src/a.txt"), old.etag, "stale"),
    ).rejects.toMatchObject({ code: "ESTALE" });
    expect(readFileSync(join(root, "src/a.txt"), "utf8")).toBe("saved");
    expect(readFileSync(join(root, "..", "secret"), "utf8")).toBe("outside");

    if (mode === "resident") {
      // One process for all of them: the helper never started.
      expect(started).toEqual([]);
      expect(files.agentMode).toBe("resident");
    } else {
      // Each operation started the helper, and the log says why.
      expect(started.length).toBeGreaterThanOrEqual(7);
      expect(started.every((argv) => argv[0] === "python3" && argv[1] === "-c")).toBe(true);
      expect(files.agentMode).toBe("fallback");
      expect(logged).toHaveBeenCalledWith(expect.stringContaining("The file agent could not start"));
    }
  });
});
