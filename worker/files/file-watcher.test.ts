import { describe, expect, it, vi } from "vitest";
import type { FileChange } from "../../protocol/files";
import type { SpawnedProcess } from "../sandbox/sandbox";
import { FileWatcher } from "./file-watcher";

/** An inotifywait stand-in: the test writes its output lines (to the latest one started) and ends it. */
function fakeInotifywait() {
  const encoder = new TextEncoder();
  const started: {
    out: ReadableStreamDefaultController<Uint8Array>;
    err: ReadableStreamDefaultController<Uint8Array>;
    exit: () => void;
  }[] = [];
  const spawn = async () => {
    const one = {} as (typeof started)[number];
    const process = {
      stdout: new ReadableStream<Uint8Array>({
        start(controller) {
          one.out = controller;
        },
      }),
      stderr: new ReadableStream<Uint8Array>({
        start(controller) {
          one.err = controller;
        },
      }),
      exitCode: new Promise<number>((resolve) => {
        one.exit = () => resolve(1);
      }),
      kill: async () => {},
    };
    started.push(one);
    return process as unknown as SpawnedProcess;
  };
  const latest = () => started.at(-1) as (typeof started)[number];
  const listeners = new Set<() => void>();
  const container = {
    isRunning: true,
    onRunning(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** The lifecycle says a container runs now. */
    start() {
      container.isRunning = true;
      for (const listener of [...listeners]) listener();
    },
    listeners,
  };
  return {
    sandbox: { spawn },
    container,
    started,
    ready: () => latest().err.enqueue(encoder.encode("Setting up watches.\nWatches established.\n")),
    line: (text: string) => latest().out.enqueue(encoder.encode(`${text}\n`)),
    exit: () => latest().exit(),
  };
}

/** Reads a server-sent event stream until `predicate` holds for what arrived. */
async function readUntil(response: Response, predicate: (text: string) => boolean): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!predicate(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}

const changes = (text: string) =>
  [...text.matchAll(/event: changes\ndata: (.*)\n/g)].flatMap((m) => JSON.parse(m[1] as string).changes);

/** A watcher over a fake inotifywait, with one client subscribed and the watch established. */
async function subscribedWatcher() {
  const fake = fakeInotifywait();
  const response = new FileWatcher(fake.sandbox, fake.container).subscribe();
  await new Promise((resolve) => setTimeout(resolve, 0));
  fake.ready();
  await readUntil(response, (text) => text.includes("event: ready"));
  return { fake, response };
}

describe("FileWatcher", () => {
  it("pairs a rename whose two halves arrive in separate reads", async () => {
    const { fake, response } = await subscribedWatcher();

    fake.line("MOVED_FROM\t/workspace/old.txt");
    await new Promise((resolve) => setTimeout(resolve, 10));
    fake.line("MOVED_TO\t/workspace/new.txt");
    const text = await readUntil(response, (t) => changes(t).length > 0);
    expect(changes(text)).toEqual([{ type: "moved", path: "new.txt", from: "old.txt", directory: false }]);
  });

  it("reports a lone MOVED_FROM as deleted once the batch window passes", async () => {
    const { fake, response } = await subscribedWatcher();

    fake.line("MOVED_FROM\t/workspace/gone.txt");
    const text = await readUntil(response, (t) => changes(t).length > 0);
    expect(changes(text)).toEqual([{ type: "deleted", path: "gone.txt", directory: false }]);
  });

  it("reports changes in .git as one git event, apart from file changes", async () => {
    const { fake, response } = await subscribedWatcher();

    fake.line("CREATE\t/workspace/.git/index.lock");
    fake.line("MOVED_FROM\t/workspace/.git/index.lock");
    fake.line("MOVED_TO\t/workspace/.git/index");
    fake.line("MODIFY\t/workspace/.git/refs/heads/main");
    fake.line("MODIFY\t/workspace/src/a.ts");
    const text = await readUntil(response, (t) => t.includes("event: git"));
    expect(changes(text)).toEqual([{ type: "modified", path: "src/a.ts", directory: false }]);
    expect(text.match(/event: git\n/g)).toHaveLength(1);
  });

  it("tells listeners about lost changes once a restarted watcher watches again, and after an overflow", async () => {
    const fake = fakeInotifywait();
    const watcher = new FileWatcher(fake.sandbox, fake.container);
    const batches: FileChange[][] = [];
    let resyncs = 0;
    const unlisten = watcher.listen({ changes: (batch) => batches.push(batch), resync: () => resyncs++ });
    await vi.waitFor(() => expect(fake.started).toHaveLength(1));
    fake.ready();
    fake.line("MODIFY\t/workspace/a.py");
    await vi.waitFor(() => expect(batches).toEqual([[{ type: "modified", path: "a.py", directory: false }]]));

    fake.exit();
    await vi.waitFor(() => expect(fake.started).toHaveLength(2), { timeout: 5_000 });
    // Changes until the new one watches are lost too: the signal waits for it.
    expect(resyncs).toBe(0);
    fake.ready();
    await vi.waitFor(() => expect(resyncs).toBe(1));

    fake.line("Q_OVERFLOW\t");
    await vi.waitFor(() => expect(resyncs).toBe(2));
    unlisten();
  });

  it("waits for the lifecycle to say a container runs, never starting one or polling", async () => {
    const fake = fakeInotifywait();
    fake.container.isRunning = false;
    const response = new FileWatcher(fake.sandbox, fake.container).subscribe();
    await vi.waitFor(() => expect(fake.container.listeners.size).toBe(1));
    expect(fake.started).toHaveLength(0);
    fake.container.start();
    await vi.waitFor(() => expect(fake.started).toHaveLength(1));
    // It stopped listening once the container ran.
    expect(fake.container.listeners.size).toBe(0);
    fake.ready();
    expect(await readUntil(response, (t) => t.includes("event: ready"))).toContain("event: ready");
  });
});
