import { describe, expect, it } from "vitest";
import type { SpawnedProcess } from "../sandbox/sandbox";
import { FileWatcher } from "./file-watcher";

/** An inotifywait stand-in: the test writes its output lines. */
function fakeInotifywait() {
  const encoder = new TextEncoder();
  let out!: ReadableStreamDefaultController<Uint8Array>;
  let err!: ReadableStreamDefaultController<Uint8Array>;
  const process = {
    stdout: new ReadableStream<Uint8Array>({
      start(controller) {
        out = controller;
      },
    }),
    stderr: new ReadableStream<Uint8Array>({
      start(controller) {
        err = controller;
      },
    }),
    exitCode: new Promise<number>(() => {}),
    kill: async () => {},
  };
  const sandbox = { running: true, spawn: async () => process as unknown as SpawnedProcess };
  return {
    sandbox,
    ready: () => err.enqueue(encoder.encode("Setting up watches.\nWatches established.\n")),
    line: (text: string) => out.enqueue(encoder.encode(`${text}\n`)),
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
  const response = new FileWatcher(fake.sandbox).subscribe();
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
});
