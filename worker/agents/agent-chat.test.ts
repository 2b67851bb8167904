import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentChat, type ChatStorage, type ChatTurnTools } from "./agent-chat";
import { approvalFor, chatTools, DATA_RULE } from "./chat-tools";
import type { AgentTool, ToolContext } from "./tools";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const callCommand = {
  content: [{ type: "tool-call" as const, toolCallId: "c1", toolName: "run_command", input: '{"text":"make"}' }],
  finishReason: { unified: "tool-calls" as const, raw: undefined },
  usage,
  warnings: [],
};
const say = (text: string) => ({
  content: [{ type: "text" as const, text }],
  finishReason: { unified: "stop" as const, raw: undefined },
  usage,
  warnings: [],
});

/** Storage as the Durable Object's: values copied in and out (structured clone). */
function memoryStorage(): ChatStorage {
  const map = new Map<string, unknown>();
  return {
    get: async <T>(key: string) => structuredClone(map.get(key)) as T | undefined,
    put: async (key, value) => void map.set(key, structuredClone(value)),
  };
}

function setup(model: MockLanguageModelV4) {
  const runs: string[] = [];
  const registry: AgentTool[] = [
    {
      name: "run_command",
      title: "run",
      description: "run",
      scope: "write",
      input: z.object({ text: z.string() }),
      summarize: () => "",
      run: async (args) => {
        runs.push(String(args.text));
        return "ok";
      },
    },
  ];
  const turn: ChatTurnTools = {
    model,
    system: DATA_RULE,
    tools: chatTools({} as Omit<ToolContext, "signal">, registry),
    approval: (auto) => approvalFor(auto, registry),
  };
  return { runs, turn };
}

describe("a conversation with the agent", () => {
  it("waits for an approval, runs on approve, and survives a reload", async () => {
    const storage = memoryStorage();
    const model = new MockLanguageModelV4({ doGenerate: [callCommand, say("Built.")] });
    const { runs, turn } = setup(model);
    const first = await new AgentChat(storage, "chat:u1").send("build it", turn);
    expect(first.pending).toEqual([
      { approvalId: expect.any(String), toolName: "run_command", input: { text: "make" } },
    ]);
    expect(runs).toEqual([]);
    // A reload: a new object over the same storage finds the conversation and its pending approval.
    const again = new AgentChat(storage, "chat:u1");
    const state = await again.state();
    expect(state.pending).toHaveLength(1);
    await expect(again.send("and another", turn)).rejects.toThrow(/pending/);
    const done = await again.decide(state.pending[0]?.approvalId ?? "", true, turn);
    expect(runs).toEqual(["make"]);
    expect(done.pending).toEqual([]);
    expect(JSON.stringify(done.messages.at(-1))).toContain("Built.");
    // Another person's conversation in the same workspace is their own.
    expect((await new AgentChat(storage, "chat:u2").state()).messages).toEqual([]);
  });

  it("runs nothing when rejected, and an answered approval cannot be answered again", async () => {
    const storage = memoryStorage();
    const model = new MockLanguageModelV4({ doGenerate: [callCommand, say("Not run, as you asked.")] });
    const { runs, turn } = setup(model);
    const chat = new AgentChat(storage, "chat:u1");
    const { pending } = await chat.send("build it", turn);
    const approvalId = pending[0]?.approvalId ?? "";
    const done = await chat.decide(approvalId, false, turn);
    expect(runs).toEqual([]);
    expect(JSON.stringify(done.messages)).toContain("rejected it in the agent panel");
    await expect(chat.decide(approvalId, true, turn)).rejects.toThrow(/answered already/);
    expect(runs).toEqual([]);
  });

  it("runs without asking on auto-approve", async () => {
    const model = new MockLanguageModelV4({ doGenerate: [callCommand, say("Built.")] });
    const { runs, turn } = setup(model);
    const chat = new AgentChat(memoryStorage(), "chat:u1");
    await chat.setAutoApprove(true);
    const done = await chat.send("build it", turn);
    expect(runs).toEqual(["make"]);
    expect(done.pending).toEqual([]);
  });
});
