import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { AgentChat } from "./agent-chat";
import { memoryStorage, recordingCommand, say, toolCalls, turnOver } from "./chat-test-fixture";

const callCommand = toolCalls([["c1", "run_command", { text: "make" }]]);

function setup(model: MockLanguageModelV4) {
  const runs: string[] = [];
  return { runs, turn: turnOver(model, [recordingCommand(runs, () => "ok")]) };
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
