import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentChat } from "./agent-chat";
import {
  runCall as call,
  commandTool,
  memoryStorage,
  recordingCommand,
  say,
  streamingModel,
  toolCalls,
  turnOver,
} from "./chat-test-fixture";
import { chatEntries } from "./chat-view";
import type { AgentTool } from "./tools";

const turnWith = (model: MockLanguageModelV4, runs: string[] = []) => turnOver(model, [recordingCommand(runs)]);

describe("the conversation as the panel shows it", () => {
  it("shows the person's message, the agent's text, and each call pending, rejected or done with its output", async () => {
    const model = streamingModel([call("c1", "make"), say("Not run."), call("c2", "ls"), say("Listed.")]);
    const turn = turnWith(model);
    const chat = new AgentChat(memoryStorage(), "chat:u1");
    const first = await chat.send("build it", turn);
    expect(chatEntries(first)).toEqual([
      { kind: "user", text: "build it" },
      { kind: "assistant", text: "Running it." },
      {
        kind: "tool",
        toolCallId: "c1",
        tool: "run_command",
        input: { text: "make" },
        status: "pending",
        approvalId: first.pending[0]?.approvalId,
      },
    ]);
    const rejected = await chat.decide(first.pending[0]?.approvalId ?? "", false, turn);
    expect(chatEntries(rejected).slice(2)).toEqual([
      expect.objectContaining({ toolCallId: "c1", status: "rejected" }),
      { kind: "assistant", text: "Not run." },
    ]);
    const second = await chat.send("list it", turn);
    const approved = await chat.decide(second.pending[0]?.approvalId ?? "", true, turn);
    const entries = chatEntries(approved);
    expect(entries.find((e) => e.kind === "tool" && e.toolCallId === "c2")).toMatchObject({
      status: "done",
      output: expect.stringContaining("ran ls"),
    });
    expect(entries.at(-1)).toEqual({ kind: "assistant", text: "Listed." });
  });

  it("shows a stop and a failed model call as notices, and keeps the person's message", async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error("connect ECONNREFUSED");
      },
    });
    const chat = new AgentChat(memoryStorage(), "chat:u1");
    await expect(chat.send("hello", turnWith(model))).rejects.toThrow(/did not answer: connect ECONNREFUSED/);
    const entries = chatEntries(await chat.state());
    expect(entries[0]).toEqual({ kind: "user", text: "hello" });
    expect(entries[1]).toMatchObject({ kind: "notice", text: expect.stringContaining("AGENT_OPENAI_BASE_URL") });
  });
});

describe("stopping a turn", () => {
  it("ends the model call in flight, keeps the person's message with a 'Stopped.' notice, and frees the conversation", async () => {
    let started: () => void = () => {};
    const calling = new Promise<void>((resolve) => {
      started = resolve;
    });
    const model = new MockLanguageModelV4({
      doStream: ({ abortSignal }) =>
        new Promise((_resolve, reject) => {
          started();
          abortSignal?.addEventListener("abort", () => reject(abortSignal.reason), { once: true });
        }),
    });
    const changes: boolean[] = [];
    const chat = new AgentChat(memoryStorage(), "chat:u1", (_saved, running) => changes.push(running));
    const turn = chat.send("think forever", turnWith(model));
    await calling;
    expect(chat.busy).toBe(true);
    expect(chat.stop()).toBe(true);
    const saved = await turn;
    expect(chatEntries(saved)).toEqual([
      { kind: "user", text: "think forever" },
      { kind: "notice", text: "Stopped." },
    ]);
    expect(chat.busy).toBe(false);
    // The page saw the turn start (running) and end.
    expect(changes).toEqual([true, false]);
    expect(chat.stop()).toBe(false);
  });
});

describe("answering approvals", () => {
  it("runs the approved one of two calls of a step, not the rejected one, once both are answered", async () => {
    const runs: string[] = [];
    const two = toolCalls([
      ["a", "run_command", { text: "one" }],
      ["b", "run_command", { text: "two" }],
    ]);
    const model = streamingModel([two, say("One ran.")]);
    const turn = turnWith(model, runs);
    const chat = new AgentChat(memoryStorage(), "chat:u1");
    const { pending } = await chat.send("both", turn);
    expect(pending.map((p) => p.input)).toEqual([{ text: "one" }, { text: "two" }]);
    const half = await chat.decide(pending[0]?.approvalId ?? "", true, turn);
    expect(runs).toEqual([]);
    expect(half.pending).toHaveLength(1);
    const done = await chat.decide(pending[1]?.approvalId ?? "", false, turn);
    expect(runs).toEqual(["one"]);
    expect(chatEntries(done).filter((e) => e.kind === "tool")).toMatchObject([
      { toolCallId: "a", status: "done" },
      { toolCallId: "b", status: "rejected" },
    ]);
  });

  it("runs what the person edited (checked by the tool's schema, defaults filled in), and shows the call as edited", async () => {
    const runs: string[] = [];
    const registry: AgentTool[] = [
      // A default, as the real tools have: the AI SDK checks the approved input against the schema's output.
      commandTool(
        async (args) => {
          runs.push(`${String(args.text)} in ${String(args.cwd)}`);
          return "ran";
        },
        z.object({ text: z.string(), cwd: z.string().default(".") }),
      ),
    ];
    const model = streamingModel([call("c1", "rm -rf build"), say("Done.")]);
    const turn = turnOver(model, registry);
    const chat = new AgentChat(memoryStorage(), "chat:u1");
    const { pending } = await chat.send("clean", turn);
    expect(pending[0]?.input).toEqual({ text: "rm -rf build", cwd: "." });
    const edited = registry[0]?.input.parse({ ...(pending[0]?.input as object), text: "rm -rf build/tmp" });
    const done = await chat.decide(pending[0]?.approvalId ?? "", true, turn, edited);
    expect(runs).toEqual(["rm -rf build/tmp in ."]);
    const entries = chatEntries(done);
    expect(entries.find((e) => e.kind === "tool")).toMatchObject({
      input: { text: "rm -rf build/tmp", cwd: "." },
      status: "done",
    });
    expect(entries).toContainEqual({ kind: "notice", text: "Approved as you edited it." });
  });
});

describe("a call that cannot run", () => {
  it("shows as failed, with why", async () => {
    const registry: AgentTool[] = [
      commandTool(async () => {
        throw new Error("the container is gone");
      }),
    ];
    const model = streamingModel([call("c1", "make"), say("It failed.")]);
    const turn = turnOver(model, registry);
    const chat = new AgentChat(memoryStorage(), "chat:u1");
    const { pending } = await chat.send("build", turn);
    const done = await chat.decide(pending[0]?.approvalId ?? "", true, turn);
    expect(chatEntries(done).find((e) => e.kind === "tool")).toMatchObject({
      status: "failed",
      output: expect.stringContaining("the container is gone"),
    });
  });
});

describe("a turn's progress", () => {
  it("is shown step by step while the turn runs: a read the agent made, before its answer", async () => {
    const registry: AgentTool[] = [
      {
        name: "read_file",
        title: "read",
        description: "read",
        scope: "read",
        input: z.object({ path: z.string() }),
        summarize: () => "",
        run: async (args) => `contents of ${String(args.path)}`,
      },
    ];
    const read = toolCalls([["r1", "read_file", { path: "a.txt" }]]);
    const model = streamingModel([read, say("It says hello.")]);
    const turn = turnOver(model, registry);
    const seen: { running: boolean; entries: ReturnType<typeof chatEntries> }[] = [];
    const chat = new AgentChat(memoryStorage(), "chat:u1", (saved, running) =>
      seen.push({ running, entries: chatEntries(saved) }),
    );
    await chat.send("what is in a.txt?", turn);
    const progress = seen.find((s) => s.running && s.entries.some((e) => e.kind === "tool"));
    expect(progress?.entries).toEqual([
      { kind: "user", text: "what is in a.txt?" },
      {
        kind: "tool",
        toolCallId: "r1",
        tool: "read_file",
        input: { path: "a.txt" },
        status: "done",
        output: expect.stringContaining("contents of a.txt"),
      },
    ]);
    const last = seen.at(-1);
    expect(last?.running).toBe(false);
    expect(last?.entries.at(-1)).toEqual({ kind: "assistant", text: "It says hello." });
    // What is kept is the turn's end, as before.
    expect(chatEntries(await chat.state())).toEqual(last?.entries);
  });
});
