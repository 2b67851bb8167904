/**
 * Co-editing with unsaved edits when something fails (issue 45's matrix): a
 * browser whose connection drops without a close (a laptop lid, a lost
 * network), and a container killed from outside (a host failure). The
 * shared document lives in the Workspace's Durable Object (worker/collab/),
 * so neither loses an edit that reached it: a reconnect gets the text, and
 * the next save writes it, to a new container if need be.
 */
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import type { CollabSaved } from "../../protocol/collab";
import { type CollabClient, openCollab } from "../support/collab-client";
import { filesUrl, putFile } from "../support/files";
import { removeWhatWeMade, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";

const open: CollabClient[] = [];

async function connect(id: string, path: string): Promise<CollabClient> {
  const client = await openCollab(id, path);
  open.push(client);
  return client;
}

async function disk(id: string, path: string): Promise<{ status: number; text: string }> {
  const response = await ownerApi(filesUrl(id, "/content", { path }));
  return { status: response.status, text: await response.text() };
}

afterAll(async () => {
  for (const client of open) client.close();
  await Promise.all(open.map((client) => client.closed));
  removeWhatWeMade();
});

describe("unsaved co-edits", () => {
  it("survive a writer's connection dropped without a close: the other writer keeps them and a reconnect gets them", async () => {
    const id = await createWorkspace("co-editing faults", "empty");
    await wake(id);
    expect((await putFile(id, "notes.txt", "base\n")).status).toBe(200);
    const laptop = await connect(id, "notes.txt");
    const desk = await connect(id, "notes.txt");
    laptop.text.insert(laptop.text.length, "from the laptop\n");
    await desk.until(() => desk.text.toString() === "base\nfrom the laptop\n", "the laptop's edit at the desk");

    // The laptop's network goes: its socket is torn down with no close frame.
    laptop.ws.terminate();
    await laptop.closed;
    desk.text.insert(desk.text.length, "from the desk\n");
    const both = "base\nfrom the laptop\nfrom the desk\n";

    const back = await connect(id, "notes.txt");
    await back.until(() => back.text.toString() === both, "both writers' edits after the reconnect");
    // Nothing was saved: the disk still has the file as it was.
    expect(await disk(id, "notes.txt")).toEqual({ status: 200, text: "base\n" });
    const answer = (await back.save()) as { saved?: CollabSaved };
    expect(answer.saved?.text).toBe(both);
    expect(await disk(id, "notes.txt")).toEqual({ status: 200, text: both });
  });

  it("survive a killed container: a reconnect gets them, and a save writes them to the new container", async () => {
    const id = await createWorkspace("co-editing faults", "empty");
    const first = await wake(id);
    expect((await putFile(id, "draft.md", "# Draft\n")).status).toBe(200);
    const writer = await connect(id, "draft.md");
    writer.text.insert(writer.text.length, "unsaved before the crash\n");
    const expected = "# Draft\nunsaved before the crash\n";
    // The edit has reached the workspace once another client sees it.
    const witness = await connect(id, "draft.md");
    await witness.until(() => witness.text.toString() === expected, "the edit at a second client");

    execFileSync("docker", ["kill", "-s", "KILL", first.container], { stdio: "ignore" });
    const back = await connect(id, "draft.md");
    expect(back.text.toString()).toBe(expected);

    const answer = (await back.save()) as { saved?: CollabSaved; error?: { code: string; message: string } };
    expect(answer.error).toBeUndefined();
    expect(answer.saved?.text).toBe(expected);
    expect(await disk(id, "draft.md")).toEqual({ status: 200, text: expected });
  });
});
