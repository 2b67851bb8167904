import type { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { AgentChat } from "./agent-chat";
import { memoryStorage, recordingCommand, say, streamingModel, toolCalls, turnOver } from "./chat-test-fixture";

const callCommand = toolCalls([["c1", "run_command", { text: "make" }]]);

function setup(model: MockLanguageModelV4) {
  const runs: string[] = [];
  return { runs, turn: turnOver(model, [recordingCommand(runs, () => "ok")]) };
}

describe("a conversation with the agent", () => {
  it("waits for an approval, runs on approve, and survives a reload", async () => {
    const storage = memoryStorage();
    const model = streamingModel([callCommand, say("Built.")]);
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
    const model = streamingModel([callCommand, say("Not run, as you asked.")]);
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
    const model = streamingModel([callCommand, say("Built.")]);
    const { runs, turn } = setup(model);
    const chat = new AgentChat(memoryStorage(), "chat:u1");
    await chat.setAutoApprove(true);
    const done = await chat.send("build it", turn);
    expect(runs).toEqual(["make"]);
    expect(done.pending).toEqual([]);
  });

  it("streams the agent's text as a draft, which the step's end makes an entry", async () => {
    const drafts: string[] = [];
    const model = streamingModel([say("Here is a longer answer, written a few letters at a time.")], 25);
    const chat = new AgentChat(memoryStorage(), "chat:u1", undefined, (draft) => drafts.push(draft));
    const done = await chat.send("explain", turnOver(model, []));
    // Drafts grew as the text came (each the start of the answer, longer than the one before).
    expect(drafts.length).toBeGreaterThan(1);
    for (const [i, draft] of drafts.entries()) {
      expect("Here is a longer answer, written a few letters at a time.".startsWith(draft)).toBe(true);
      if (i > 0) expect(draft.length).toBeGreaterThan(drafts[i - 1]?.length ?? 0);
    }
    expect(chat.draft).toBe("");
    expect(JSON.stringify(done.messages.at(-1))).toContain("written a few letters at a time.");
  });

  it("keeps what the agent had said when stopped while it writes, with a 'Stopped.' notice", async () => {
    const model = streamingModel([say("one two three four five six seven eight nine ten eleven twelve")], 20);
    let first: () => void = () => {};
    const drafted = new Promise<void>((resolve) => {
      first = resolve;
    });
    const storage = memoryStorage();
    const chat = new AgentChat(storage, "chat:u1", undefined, () => first());
    const turn = chat.send("count", turnOver(model, []));
    await drafted;
    const said = chat.draft;
    expect(said.length).toBeGreaterThan(0);
    expect(chat.stop()).toBe(true);
    const saved = await turn;
    const kept = saved.messages.at(-1);
    expect(kept?.role).toBe("assistant");
    expect(typeof kept?.content === "string" && kept.content.startsWith(said)).toBe(true);
    expect(kept?.content).not.toContain("twelve");
    expect(saved.notices?.at(-1)).toEqual({ after: saved.messages.length, text: "Stopped." });
    // Kept, so a reload shows it; the conversation is free for the next message.
    expect((await new AgentChat(storage, "chat:u1").state()).messages).toEqual(saved.messages);
    expect(chat.busy).toBe(false);
  });
});
