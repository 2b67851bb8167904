/**
 * The agent panel's tool loop end to end: the IDE's real OpenAI-compatible
 * provider talks to a scripted model on loopback (test/support/scripted-model.ts,
 * set up for the whole tier), and the tools run in a real container.
 * An approval waits; approve runs the real command (or the person's edit of it); reject never does; the
 * conversation survives a reload; it is each person's own; a viewer has none. The answer streams to
 * the page as it arrives, and Stop keeps what it had said.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { type AgentChatView, type ChatEntry, MAX_BEFORE_CHARS } from "../../protocol/agent-chat";
import type { AgentActivity } from "../../protocol/agents";
import type { Role } from "../../protocol/roles";
import { api } from "../support/api";
import { shell, workspaceContainer } from "../support/files";
import { createWorkspace, ownerApi } from "../support/session";
import { accessUser } from "../support/users";

let id: string;
let container: string;

beforeAll(async () => {
  id = await createWorkspace("agent chat", "empty");
  container = await workspaceContainer(id);
});

const chatPath = (suffix = "") => `/api/workspaces/${id}/agent-chat${suffix}`;

async function chat(suffix: string, method: string, body?: unknown, headers?: Record<string, string>) {
  const init: RequestInit = {
    method,
    headers: { ...(headers ?? {}), ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
  return headers ? api(chatPath(suffix), init) : ownerApi(chatPath(suffix), init);
}

async function view(response: Response): Promise<AgentChatView> {
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as AgentChatView;
}

type ToolEntry = Extract<ChatEntry, { kind: "tool" }>;
const tools = (v: AgentChatView) => v.entries.filter((e): e is ToolEntry => e.kind === "tool");

function exists(path: string): boolean {
  return shell(container, `test -e ${path} && echo yes || echo no`).trim() === "yes";
}

async function grant(user: string, role: Role): Promise<void> {
  const response = await ownerApi(`/api/workspaces/${id}/test-hooks/members`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user, role }),
  });
  expect(response.status).toBe(204);
}

/** The events of a server-sent event stream, as `{name, data}`. */
async function* sseEvents(response: Response): AsyncGenerator<{ name: string; data: unknown }> {
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) throw new Error("no body");
  let buffered = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += value;
      let end = buffered.indexOf("\n\n");
      while (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const name = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (name && data) yield { name, data: JSON.parse(data) };
        end = buffered.indexOf("\n\n");
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

describe("the agent panel", () => {
  it("shows the model it uses, and answers a plain message", async () => {
    await view(await chat("", "DELETE"));
    const start = await view(await chat("", "GET"));
    expect(start.model).toEqual({
      configured: true,
      label: expect.stringMatching(/^scripted-test-model at 127\.0\.0\.1:\d+$/),
    });
    expect(start.entries).toEqual([]);
    const answered = await view(await chat("/messages", "POST", { text: "hello there" }));
    expect(answered.entries).toEqual([
      { kind: "user", text: "hello there" },
      { kind: "assistant", text: "You said: hello there" },
    ]);
    expect(answered.running).toBe(false);
  });

  it("streams the answer as it arrives, shows it after a reload mid-answer, and keeps what it said when stopped", async () => {
    await view(await chat("", "DELETE"));
    const events = await ownerApi(chatPath("/events"));
    expect(events.headers.get("content-type")).toContain("text/event-stream");
    const stream = sseEvents(events);
    const answered = chat("/messages", "POST", { text: "count slowly to 80" });
    // Drafts arrive one after another as the model writes, each longer than the last.
    const drafts: string[] = [];
    for await (const { name, data } of stream) {
      if (name !== "draft") continue;
      const { draft } = data as { draft: string };
      if (drafts.length > 0) expect(draft.startsWith(drafts.at(-1) ?? "")).toBe(true);
      drafts.push(draft);
      if (draft.includes("4 ")) break;
    }
    expect(drafts.length).toBeGreaterThan(1);
    expect(drafts[0]).toMatch(/^1 /);
    // A reload in the middle: the conversation so far and the answer as far as it came.
    const reloaded = await view(await chat("", "GET"));
    expect(reloaded.running).toBe(true);
    expect(reloaded.draft).toMatch(/^1 2 3 4 /);
    expect(reloaded.entries).toEqual([{ kind: "user", text: "count slowly to 80" }]);
    await view(await chat("/stop", "POST"));
    const stopped = await view(await answered);
    await stream.return(undefined);
    expect(stopped.running).toBe(false);
    expect(stopped.draft).toBe("");
    expect(stopped.entries).toEqual([
      { kind: "user", text: "count slowly to 80" },
      { kind: "assistant", text: expect.stringMatching(/^1 2 3 4 (\d+ )*$/) },
      { kind: "notice", text: "Stopped." },
    ]);
    // Stopped long before the end, and kept: the next message is answered, after it.
    expect(JSON.stringify(stopped.entries)).not.toContain("80 ");
    const next = await view(await chat("/messages", "POST", { text: "and now?" }));
    expect(next.entries.slice(0, 3)).toEqual(stopped.entries);
    expect(next.entries.at(-1)).toEqual({ kind: "assistant", text: "You said: and now?" });
  });

  it("waits for approval before running a command, runs the real command on approve, and survives a reload", async () => {
    await view(await chat("", "DELETE"));
    const asked = await view(await chat("/messages", "POST", { text: "run: echo made > /workspace/approved.txt" }));
    const [call] = tools(asked);
    expect(call).toMatchObject({
      tool: "run_command",
      input: { command: "echo made > /workspace/approved.txt" },
      status: "pending",
      approvalId: expect.any(String),
    });
    // Nothing ran yet.
    expect(exists("/workspace/approved.txt")).toBe(false);
    // A reload: the conversation and its pending approval are still there.
    const reloaded = await view(await chat("", "GET"));
    expect(reloaded.entries).toEqual(asked.entries);
    // A new message waits for the decision.
    const busy = await chat("/messages", "POST", { text: "something else" });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ code: "AGENT_BUSY" });

    const done = await view(
      await chat(`/approvals/${encodeURIComponent(call?.approvalId ?? "")}`, "POST", { approved: true }),
    );
    expect(shell(container, "cat /workspace/approved.txt").trim()).toBe("made");
    expect(tools(done)[0]).toMatchObject({ status: "done", output: expect.stringContaining("Exit code 0.") });
    expect(done.entries.at(-1)).toMatchObject({ kind: "assistant", text: expect.stringContaining("Tool answered:") });
    // Answered once: the same approval cannot run it again.
    const again = await chat(`/approvals/${encodeURIComponent(call?.approvalId ?? "")}`, "POST", { approved: true });
    expect(again.status).toBe(404);
    expect((await view(await chat("", "GET"))).entries).toEqual(done.entries);
    // The owner's agent activity lists what the panel ran (the log is written beside the answer: wait for it).
    const ran = expect.objectContaining({
      tool: "run_command",
      summary: expect.stringContaining("approved.txt"),
      outcome: "ok",
    });
    await expect.poll(panelActivity, { timeout: 10_000 }).toContainEqual(ran);
  });

  it("never runs a rejected command", async () => {
    const asked = await view(await chat("/messages", "POST", { text: "run: touch /workspace/rejected.txt" }));
    const call = tools(asked).at(-1);
    expect(call).toMatchObject({ input: { command: "touch /workspace/rejected.txt" }, status: "pending" });
    const done = await view(
      await chat(`/approvals/${encodeURIComponent(call?.approvalId ?? "")}`, "POST", { approved: false }),
    );
    expect(tools(done).at(-1)).toMatchObject({ toolCallId: call?.toolCallId, status: "rejected" });
    expect(done.entries.at(-1)?.kind).toBe("assistant");
    expect(exists("/workspace/rejected.txt")).toBe(false);
    // The owner's agent activity does not list what the panel did not run.
    expect((await panelActivity()).some((entry) => entry.summary.includes("rejected.txt"))).toBe(false);
  });

  it("runs a command as the person edited it, and refuses an edit the tool cannot take", async () => {
    await view(await chat("", "DELETE"));
    const asked = await view(await chat("/messages", "POST", { text: "run: touch /workspace/proposed.txt" }));
    const approval = `/approvals/${encodeURIComponent(tools(asked)[0]?.approvalId ?? "")}`;
    const invalid = await chat(approval, "POST", { approved: true, input: { command: "" } });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("Nothing ran"),
    });
    expect(tools(await view(await chat("", "GET")))[0]?.status).toBe("pending");
    const done = await view(
      await chat(approval, "POST", { approved: true, input: { command: "touch /workspace/edited.txt" } }),
    );
    expect(tools(done)[0]).toMatchObject({ input: { command: "touch /workspace/edited.txt" }, status: "done" });
    expect(done.entries).toContainEqual({ kind: "notice", text: "Approved as you edited it." });
    expect(exists("/workspace/edited.txt"), JSON.stringify(tools(done)[0])).toBe(true);
    expect(exists("/workspace/proposed.txt")).toBe(false);
  });

  it("shows a file write with its content, and runs it without asking on auto-approve", async () => {
    await view(await chat("", "DELETE"));
    const on = await view(await chat("/auto-approve", "PUT", { on: true }));
    expect(on.autoApprove).toBe(true);
    const done = await view(await chat("/messages", "POST", { text: "write notes/agent.txt: written by the agent" }));
    expect(tools(done)[0]).toMatchObject({
      tool: "write_file",
      input: { path: "notes/agent.txt", content: "written by the agent" },
      status: "done",
    });
    expect(shell(container, "cat /workspace/notes/agent.txt")).toBe("written by the agent");
    expect((await view(await chat("/auto-approve", "PUT", { on: false }))).autoApprove).toBe(false);
  });

  it("keeps what a file was before the agent changed it, for the editor's diff, for that person only", async () => {
    await view(await chat("", "DELETE"));
    shell(container, "printf 'line one\\nline two\\n' > /workspace/before.txt");
    await view(await chat("/auto-approve", "PUT", { on: true }));
    const change = async (toolCallId: string | undefined, headers?: Record<string, string>) => {
      const path = `/changes/${encodeURIComponent(toolCallId ?? "")}`;
      return headers ? api(chatPath(path), { headers }) : ownerApi(chatPath(path));
    };
    const edited = tools(await view(await chat("/messages", "POST", { text: "edit before.txt: line two => line 2" })));
    expect(edited[0]).toMatchObject({ tool: "edit_file", status: "done" });
    expect(shell(container, "cat /workspace/before.txt").trim()).toBe("line one\nline 2");
    const before = await change(edited[0]?.toolCallId);
    expect(before.status).toBe(200);
    expect(await before.json()).toEqual({
      toolCallId: edited[0]?.toolCallId,
      path: "before.txt",
      before: "line one\nline two\n",
      created: false,
    });
    // A new file was nothing before.
    const written = tools(await view(await chat("/messages", "POST", { text: "write made/new.txt: new" }))).at(-1);
    expect(await (await change(written?.toolCallId)).json()).toMatchObject({
      path: "made/new.txt",
      before: "",
      created: true,
    });
    // An edit that changed nothing (no match) keeps nothing; neither does an unknown call.
    const missed = tools(await view(await chat("/messages", "POST", { text: "edit before.txt: absent => x" }))).at(-1);
    expect(missed?.output).toContain("EDIT_NO_MATCH");
    for (const toolCallId of [missed?.toolCallId, "call_unknown"]) {
      const refused = await change(toolCallId);
      expect(refused.status).toBe(404);
      expect(await refused.json()).toMatchObject({
        code: "NOT_FOUND",
        message: expect.stringContaining("Open the file"),
      });
    }
    // Another person in the workspace does not get this person's.
    await grant("changes-editor@example.com", "editor");
    const other = await change(edited[0]?.toolCallId, await accessUser("changes-editor@example.com"));
    expect(other.status).toBe(404);
    // Clearing the conversation forgets them.
    await view(await chat("/auto-approve", "PUT", { on: false }));
    await view(await chat("", "DELETE"));
    expect((await change(edited[0]?.toolCallId)).status).toBe(404);
  });

  it("keeps the before of a file of the longest kept length in characters that each take two bytes", async () => {
    await view(await chat("", "DELETE"));
    // CJK characters, an x and a newline, MAX_BEFORE_CHARS in all: 2.7 MB of UTF-8, 1.8 MB as the stored string.
    const wide = MAX_BEFORE_CHARS - 2;
    shell(container, `python3 -c "import sys; sys.stdout.write('中' * ${wide} + 'x\\n')" > /workspace/wide.txt`);
    await view(await chat("/auto-approve", "PUT", { on: true }));
    const edited = tools(await view(await chat("/messages", "POST", { text: "edit wide.txt: x => y" })));
    expect(edited[0]).toMatchObject({ tool: "edit_file", status: "done" });
    const kept = await ownerApi(chatPath(`/changes/${encodeURIComponent(edited[0]?.toolCallId ?? "")}`));
    expect(kept.status).toBe(200);
    const { before } = (await kept.json()) as { before: string };
    expect(before.length).toBe(MAX_BEFORE_CHARS);
    expect(before.endsWith("中x\n")).toBe(true);
    await view(await chat("/auto-approve", "PUT", { on: false }));
  });

  it("is each person's own: an editor has a conversation of their own, a viewer none (403)", async () => {
    await grant("chat-editor@example.com", "editor");
    await grant("chat-viewer@example.com", "viewer");
    const editor = await accessUser("chat-editor@example.com");
    const theirs = await view(await chat("", "GET", undefined, editor));
    expect(theirs.entries).toEqual([]);
    const viewer = await accessUser("chat-viewer@example.com");
    for (const [suffix, method, body] of [
      ["", "GET", undefined],
      ["/messages", "POST", { text: "run: touch /workspace/by-viewer.txt" }],
      ["/auto-approve", "PUT", { on: true }],
    ] as const) {
      const refused = await chat(suffix, method, body, viewer);
      expect(refused.status, `${method} ${suffix}`).toBe(403);
      expect(await refused.json()).toMatchObject({ code: "FORBIDDEN" });
    }
    expect(exists("/workspace/by-viewer.txt")).toBe(false);
  });

  it("refuses an empty message with a code", async () => {
    const refused = await chat("/messages", "POST", { text: "  " });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("text") });
  });
});

/** The owner's view of what the agent panel ran (its calls in the agent activity log). */
async function panelActivity(): Promise<AgentActivity["entries"]> {
  const response = await ownerApi(`/api/workspaces/${id}/agent-activity`);
  expect(response.status).toBe(200);
  return ((await response.json()) as AgentActivity).entries.filter((entry) => entry.tokenId === "agent-panel");
}
