import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
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
import { Readable, Writable } from "node:stream";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { AgentClient, type AgentConnection, AgentRequestError, AgentStoppedError } from "./agent-client";
import { encodeData, encodeFrame, FrameDecoder, FrameKind, MAX_PAYLOAD, payloads, WINDOW } from "./agent-protocol";
import { AGENT_SCRIPT } from "./agent-script";

describe("agent frames", () => {
  it("come back whole from a stream cut at any byte", () => {
    const frames = [
      encodeFrame(1, FrameKind.OPEN, { op: "stat", args: ["/w/a"] }),
      encodeFrame(1, FrameKind.DATA, undefined, new Uint8Array([0, 1, 2, 255])),
      encodeFrame(2, FrameKind.END),
      encodeFrame(4_000_000_000, FrameKind.RESULT, { size: 3, name: "é" }),
    ];
    const bytes = new Uint8Array(frames.reduce((n, f) => n + f.byteLength, 0));
    let offset = 0;
    for (const frame of frames) {
      bytes.set(frame, offset);
      offset += frame.byteLength;
    }
    for (const step of [1, 3, 7, bytes.byteLength]) {
      const decoder = new FrameDecoder();
      const out = [];
      for (let at = 0; at < bytes.byteLength; at += step) out.push(...decoder.push(bytes.slice(at, at + step)));
      expect(decoder.pending).toBe(0);
      expect(out.map((f) => [f.id, f.kind, f.header, [...f.payload]])).toEqual([
        [1, FrameKind.OPEN, { op: "stat", args: ["/w/a"] }, []],
        [1, FrameKind.DATA, undefined, [0, 1, 2, 255]],
        [2, FrameKind.END, undefined, []],
        [4_000_000_000, FrameKind.RESULT, { size: 3, name: "é" }, []],
      ]);
    }
  });

  it("splits content larger than one frame into several", () => {
    const content = new Uint8Array(MAX_PAYLOAD * 2 + 5).map((_, i) => i % 251);
    const parts = [...payloads(content)];
    expect(parts.map((p) => p.byteLength)).toEqual([MAX_PAYLOAD, MAX_PAYLOAD, 5]);
    expect(Buffer.concat(parts).equals(Buffer.from(content))).toBe(true);
  });

  it("come back whole when a large frame arrives in many small reads, its parts joined once", () => {
    const content = new Uint8Array(MAX_PAYLOAD).map((_, i) => i % 251);
    const halves = [content.subarray(0, 1000), content.subarray(1000)];
    const bytes = Buffer.concat([encodeData(7, halves, MAX_PAYLOAD), encodeFrame(7, FrameKind.END)]);
    const decoder = new FrameDecoder();
    const out = [];
    for (let at = 0; at < bytes.byteLength; at += 4096) out.push(...decoder.push(bytes.subarray(at, at + 4096)));
    expect(decoder.pending).toBe(0);
    expect(out.map((f) => [f.id, f.kind, f.payload.byteLength])).toEqual([
      [7, FrameKind.DATA, MAX_PAYLOAD],
      [7, FrameKind.END, 0],
    ]);
    expect(Buffer.from(out[0]?.payload ?? []).equals(Buffer.from(content))).toBe(true);
  });

  it("refuses a stream that is not frames", () => {
    const garbage = new TextEncoder().encode("Traceback (most recent call last):\n");
    expect(() => new FrameDecoder().push(garbage)).toThrow(/not an agent frame/);
  });
});

/**
 * The real agent, run by this machine's python3 against a scratch folder
 * standing in for /workspace, through the client the Worker uses.
 */
const scratch = mkdtempSync(join(tmpdir(), "files-agent-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the resident agent", { timeout: 60_000 }, () => {
  let root: string;
  let processes: ChildProcess[];
  let client: AgentClient;

  const launch = async (): Promise<AgentConnection> => {
    const child = spawn("python3", ["-c", AGENT_SCRIPT, root], { stdio: ["pipe", "pipe", "inherit"] });
    processes.push(child);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    return {
      readable: Readable.toWeb(child.stdout as Readable) as unknown as ReadableStream<Uint8Array>,
      writable: Writable.toWeb(child.stdin as Writable) as unknown as WritableStream<Uint8Array>,
      exited,
      kill: async () => {
        child.kill("SIGKILL");
      },
    };
  };
  const at = (path: string) => join(root, path);
  const text = async (stream: ReadableStream<Uint8Array>) => new Response(stream).text();
  /** A body that sends `first`, then waits until `release` is called. */
  const heldBody = (first: Uint8Array) => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(first);
        await released;
        controller.close();
      },
    });
    return { body, release };
  };
  const pid = async () => ((await client.call("ping", [])) as { pid: number }).pid;

  beforeEach(() => {
    root = join(mkdtempSync(join(scratch, "case-")), "workspace");
    mkdirSync(join(root, "src"), { recursive: true });
    writeFileSync(join(root, "src/a.txt"), "inside");
    writeFileSync(join(root, "..", "secret"), "outside");
    processes = [];
    client = new AgentClient(launch);
  });
  afterEach(async () => {
    await client.stop();
    for (const child of processes) child.kill("SIGKILL");
  });

  it("runs a command: its output streamed with stderr in order, its env, its exit code; a cancel ends its group", async () => {
    const ran = await client.open("command", [
      JSON.stringify({ GREETING: "hi" }),
      "sh",
      "-c",
      'echo "$GREETING"; echo oops >&2; head -c 3000000 /dev/zero | tr "\\0" x; echo; exit 3',
    ]);
    const output = await text(ran.body);
    expect(output.startsWith("hi\noops\n")).toBe(true);
    // More than the window: it flowed as the reader granted.
    expect(output.length).toBe("hi\noops\n".length + 3_000_000 + 1);
    expect(await ran.result).toEqual({ exitCode: 3 });

    const marker = at("started");
    const controller = new AbortController();
    const long = await client.open("command", ["{}", "sh", "-c", `sleep 300 & echo $! > ${marker}; wait`], {
      signal: controller.signal,
    });
    for (let i = 0; i < 100 && !existsSync(marker); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const child = Number(readFileSync(marker, "utf8"));
    const alive = () => {
      try {
        process.kill(child, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive()).toBe(true);
    controller.abort(new Error("stopped by the test"));
    await expect(text(long.body)).rejects.toThrow("stopped by the test");
    // The background sleep, in the command's process group, ends too.
    for (let i = 0; i < 100 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive()).toBe(false);
  });

  /** The agent's login shell (`shell`), HOME in the case's folder (its .profile is the test's). */
  const home = () => join(root, "..", "home");
  const shell = (script: string, args: string[] = [], options: { timeout?: number; signal?: AbortSignal } = {}) =>
    client.open(
      "shell",
      [JSON.stringify({ HOME: home(), GREETING: "hi" }), String(options.timeout ?? 60), "1", script, ...args],
      { signal: options.signal },
    );
  const lines = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : []);
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(check()).toBe(true);
  };
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it("runs a login shell's script: its arguments, env and profile, output streamed with stderr in order, its exit code; a cancel ends its group", async () => {
    mkdirSync(home());
    writeFileSync(join(home(), ".profile"), "export FROM_PROFILE=yes\n");
    const ran = await shell(
      'echo "$GREETING $FROM_PROFILE $0 $# [$1] [$2]"; echo oops >&2; head -c 3000000 /dev/zero | tr "\\0" x; echo; exit 3',
      ["a b", "it's"],
    );
    const output = await text(ran.body);
    expect(output.startsWith("hi yes bash 2 [a b] [it's]\noops\n")).toBe(true);
    // More than the window: it flowed as the reader granted.
    expect(output.length).toBe("hi yes bash 2 [a b] [it's]\noops\n".length + 3_000_000 + 1);
    expect(await ran.result).toEqual({ exitCode: 3 });
    await expect(shell("echo nul", ["a\0b"])).rejects.toMatchObject({ code: "EINVAL" });

    const marker = at("started");
    const controller = new AbortController();
    const long = await shell(`sleep 300 & echo $! > ${marker}; wait`, [], { signal: controller.signal });
    await until(() => existsSync(marker) && readFileSync(marker, "utf8").endsWith("\n"));
    const child = Number(readFileSync(marker, "utf8"));
    expect(alive(child)).toBe(true);
    controller.abort(new Error("stopped by the test"));
    await expect(text(long.body)).rejects.toThrow("stopped by the test");
    // The background sleep, in the command's process group, ends too.
    await until(() => !alive(child));
  });

  it("runs each command in a login shell started ahead, its profile read, unless the profile changed since", async () => {
    mkdirSync(home());
    const started = join(home(), "started");
    // Each login shell notes its pid when it reads its profile.
    writeFileSync(join(home(), ".profile"), 'echo $$ >> "$HOME/started"\nexport FROM_PROFILE=first\n');
    const first = await shell('echo "$$ $FROM_PROFILE"');
    expect(await text(first.body)).toBe(`${lines(started)[0]} first\n`);
    // The next one has read its profile before it is asked for anything.
    await until(() => lines(started).length === 2);
    const ahead = lines(started)[1] as string;
    const second = await shell("echo $$");
    expect(await text(second.body)).toBe(`${ahead}\n`);

    await until(() => lines(started).length === 3);
    const stale = Number(lines(started)[2]);
    writeFileSync(join(home(), ".profile"), 'echo $$ >> "$HOME/started"\nexport FROM_PROFILE=changed\n');
    const third = await shell('echo "$$ $FROM_PROFILE"');
    const [pid, value] = (await text(third.body)).trim().split(" ");
    expect(value).toBe("changed");
    expect(Number(pid)).not.toBe(stale);
    // The one whose profile went stale ran nothing and is gone.
    await until(() => !alive(stale));

    // One that died meanwhile (killed from a terminal, say) is replaced for the command.
    await until(() => lines(started).length === 5);
    const killed = Number(lines(started)[4]);
    process.kill(killed, "SIGKILL");
    // Dead: a zombie until the agent reaps it.
    await until(() => !alive(killed) || readFileSync(`/proc/${killed}/stat`, "utf8").split(" ")[2] === "Z");
    const fourth = await shell('echo "$$ $FROM_PROFILE"');
    const [fourthPid, fourthValue] = (await text(fourth.body)).trim().split(" ");
    expect(fourthValue).toBe("changed");
    expect(Number(fourthPid)).not.toBe(killed);
  });

  it("ends a command at its timeout, its whole group: exit 124 after TERM, 137 when it took a KILL", async () => {
    const marker = at("child");
    const ended = await shell(`sleep 300 & echo $! > ${marker}; sleep 300`, [], { timeout: 1 });
    await text(ended.body);
    expect(await ended.result).toEqual({ exitCode: 124 });
    await until(() => !alive(Number(readFileSync(marker, "utf8"))));
    const killed = await shell("trap '' TERM; sleep 300", [], { timeout: 1 });
    await text(killed.body);
    expect(await killed.result).toEqual({ exitCode: 137 });
  });

  it("answers the file operations with the helper's results and Linux errors", async () => {
    const stat = (await client.call("stat", [at("src/a.txt")])) as { type: string; size: number; etag: string };
    expect(stat).toMatchObject({ type: "file", size: 6 });
    const list = (await client.call("list", [at("src")])) as { entries: { name: string }[] };
    expect(list.entries.map((e) => e.name)).toEqual(["a.txt"]);
    await expect(client.call("stat", [at("missing")])).rejects.toMatchObject({ code: "ENOENT" });
    symlinkSync("../secret", at("escape"));
    await expect(client.call("stat", [at("escape")])).rejects.toMatchObject({
      code: "EXDEV",
      detail: "Resolves outside the workspace through a symbolic link",
    });
    await expect(client.open("read", [at("escape")])).rejects.toBeInstanceOf(AgentRequestError);
    const read = await client.open("read", [at("src/a.txt"), "stat"]);
    expect(read.head).toMatchObject({ etag: stat.etag });
    expect(await text(read.body)).toBe("inside");
  });

  it("streams content larger than a frame and its window both ways", async () => {
    const content = Buffer.alloc(WINDOW * 3 + 17, "x");
    content.write("start", 0);
    content.write("end", content.byteLength - 3);
    const saved = (await client.call("save", [at("src/.a.txt.save-1"), at("src/a.txt"), ""], {
      body: new Blob([content]).stream(),
    })) as { size: number };
    expect(saved.size).toBe(content.byteLength);
    expect(readFileSync(at("src/a.txt")).equals(content)).toBe(true);
    const read = await client.open("read", [at("src/a.txt")]);
    expect(Buffer.from(await new Response(read.body).arrayBuffer()).equals(content)).toBe(true);
  });

  it("saves content that comes in many small reads (gathered into frames) and in reads larger than a frame", async () => {
    const content = Buffer.alloc(WINDOW + MAX_PAYLOAD + 4321).map((_, i) => i % 253);
    for (const size of [3000, MAX_PAYLOAD * 2 + 1]) {
      let offset = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= content.byteLength) return controller.close();
          controller.enqueue(new Uint8Array(content.subarray(offset, offset + size)));
          offset += size;
        },
      });
      const saved = (await client.call("save", [at("src/.b.bin.save-1"), at("src/b.bin"), ""], { body })) as {
        size: number;
      };
      expect(saved.size).toBe(content.byteLength);
      expect(readFileSync(at("src/b.bin")).equals(content)).toBe(true);
    }
  });

  it("answers a listing larger than a frame and its window (as DATA), then a stat on the same agent", async () => {
    // 12,000 entries of long names: about 1.5 MB of JSON, more than a frame may hold or a window may carry.
    mkdirSync(at("many"));
    const names = Array.from({ length: 12_000 }, (_, i) => `${String(i).padStart(5, "0")}-${"n".repeat(90)}`);
    for (const name of names) writeFileSync(at(`many/${name}`), "");
    const before = await pid();
    const list = (await client.call("list", [at("many")])) as { entries: { name: string; type: string }[] };
    expect(list.entries.map((e) => e.name).sort()).toEqual(names);
    expect(JSON.stringify(list).length).toBeGreaterThan(WINDOW + MAX_PAYLOAD);
    // The same answer as its bytes, unparsed (as a route hands it on); and one small enough for a header.
    const bytes = await client.callForBytes("list", [at("many")]);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual(list);
    const small = await client.callForBytes("list", [at("src")]);
    expect(JSON.parse(new TextDecoder().decode(small)).entries.map((e: { name: string }) => e.name)).toEqual(["a.txt"]);
    expect(await client.call("stat", [at("src/a.txt")])).toMatchObject({ type: "file" });
    expect(await pid()).toBe(before);
  });

  it("answers a stat while a large read waits for its reader", async () => {
    writeFileSync(at("big"), Buffer.alloc(WINDOW * 4, "b"));
    const slow = await client.open("read", [at("big")]);
    // Nobody reads `slow`: the agent stops at its window, and the stat still gets through.
    await expect(client.call("stat", [at("src/a.txt")])).resolves.toMatchObject({ size: 6 });
    await slow.body.cancel();
    await expect(client.call("stat", [at("big")])).resolves.toMatchObject({ size: WINDOW * 4 });
  });

  it("cancels a save: the caller gets its reason, the file stays as it was, no temporary file is left", async () => {
    const { body } = heldBody(new TextEncoder().encode("half of the new content"));
    const controller = new AbortController();
    const saving = client.call("save", [at("src/.a.txt.save-2"), at("src/a.txt"), ""], {
      body,
      signal: controller.signal,
    });
    // The temporary file exists once the agent has begun writing.
    while (!existsSync(at("src/.a.txt.save-2"))) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort(new Error("the user closed the tab"));
    await expect(saving).rejects.toThrow("the user closed the tab");
    while (existsSync(at("src/.a.txt.save-2"))) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(readFileSync(at("src/a.txt"), "utf8")).toBe("inside");
    expect(readdirSync(at("src"))).toEqual(["a.txt"]);
    await expect(client.call("stat", [at("src/a.txt")])).resolves.toMatchObject({ size: 6 });
  });

  it("reports an agent that died mid-request to that caller, and starts a new one for the next", async () => {
    const first = await pid();
    const { body } = heldBody(new TextEncoder().encode("never finished"));
    const saving = client.call("save", [at("src/.a.txt.save-3"), at("src/a.txt"), ""], { body });
    while (!existsSync(at("src/.a.txt.save-3"))) await new Promise((resolve) => setTimeout(resolve, 10));
    process.kill(first, "SIGKILL");
    await expect(saving).rejects.toBeInstanceOf(AgentStoppedError);
    await expect(saving).rejects.toThrow(/stopped during this request/);
    expect(readFileSync(at("src/a.txt"), "utf8")).toBe("inside");
    const second = await pid();
    expect(second).not.toBe(first);
    await expect(client.call("stat", [at("src/a.txt")])).resolves.toMatchObject({ size: 6 });
  });

  it("runs a short command to completion: its exit code and output", async () => {
    await expect(client.call("run", ["{}", "sh", "-c", "echo out; echo err >&2; exit 3"])).resolves.toEqual({
      exitCode: 3,
      stdout: "out\n",
      stderr: "err\n",
    });
  });

  it("runs a short command in a folder, with added environment and the request's body as stdin", async () => {
    const settings = JSON.stringify({ cwd: at("src"), env: { GREETING: "hello" }, stdin: true });
    const body = new Blob(["from stdin\n"]).stream();
    await expect(
      client.call("run", [settings, "sh", "-c", 'echo "$GREETING in $(pwd)"; cat; test -n "$PATH"'], { body }),
    ).resolves.toEqual({ exitCode: 0, stdout: `hello in ${at("src")}\nfrom stdin\n`, stderr: "" });
    // Without stdin: it reads nothing, never the agent's own stdin.
    await expect(client.call("run", ["{}", "cat"])).resolves.toEqual({ exitCode: 0, stdout: "", stderr: "" });
  });

  it("streams change events in inotifywait's format until cancelled", async () => {
    const watch = await client.open("watch", [root, "(^|/)node_modules(/|$)"]);
    mkdirSync(at("node_modules/x"), { recursive: true });
    mkdirSync(at("src/new"));
    const reader = watch.body.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    // The new folder is watched before its event is sent: what is made in it after that is seen.
    while (!seen.includes(`CREATE,ISDIR\t${at("src/new")}`)) seen += (await reader.read()).value ?? "";
    writeFileSync(at("src/new/file.txt"), "hello");
    while (!seen.includes(`CLOSE_WRITE\t${at("src/new/file.txt")}`)) seen += (await reader.read()).value ?? "";
    expect(seen).not.toContain("node_modules/x");
    await reader.cancel();
    await expect(client.call("stat", [at("src/new/file.txt")])).resolves.toMatchObject({ size: 5 });
  });
});

describe("the agent's connection breaking", () => {
  it("fails a request whose content cannot be written with AgentStoppedError, not the stream's own error", async () => {
    // A connection reset under a save (the agent killed): the OPEN went out, the content's write fails.
    let writes = 0;
    const client = new AgentClient(async () => ({
      readable: new ReadableStream<Uint8Array>(),
      writable: new WritableStream<Uint8Array>({
        write() {
          writes++;
          if (writes > 1) throw new Error("Network connection lost.");
        },
      }),
      exited: new Promise(() => {}),
      kill: async () => {},
      greeted: true,
    }));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(MAX_PAYLOAD));
        controller.close();
      },
    });
    await expect(client.call("write", ["/workspace/a"], { body })).rejects.toBeInstanceOf(AgentStoppedError);
    expect(client.running).toBe(false);
    await client.stop();
  });
});
