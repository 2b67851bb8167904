import { describe, expect, it } from "vitest";
import { chatModel, DEFAULT_WORKERS_AI_MODEL, UNCONFIGURED } from "./chat-model";

describe("the agent panel's model", () => {
  it("says exactly what to set when there is none", () => {
    expect(chatModel({})).toEqual({ ok: false, problem: UNCONFIGURED });
    expect(UNCONFIGURED).toContain("AGENT_OPENAI_API_KEY");
  });

  it("takes Workers AI through the AI binding, the seed's model by default", () => {
    const choice = chatModel({ AI: {} as Ai });
    expect(choice.ok && choice.label).toBe(`${DEFAULT_WORKERS_AI_MODEL} (Workers AI)`);
  });

  it("prefers an OpenAI-compatible endpoint, and names what it is missing", () => {
    const env = { AGENT_OPENAI_BASE_URL: "https://llm.example/v1", AGENT_MODEL: "m1", AGENT_OPENAI_API_KEY: "k" };
    const choice = chatModel({ ...env, AI: {} as Ai });
    expect(choice.ok && choice.label).toBe("m1 at llm.example");
    expect(chatModel({ ...env, AGENT_MODEL: "" })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/AGENT_MODEL/),
    });
    expect(chatModel({ ...env, AGENT_OPENAI_API_KEY: undefined })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/secret/),
    });
    expect(chatModel({ ...env, AGENT_OPENAI_BASE_URL: "llm.example" })).toMatchObject({ ok: false });
  });
});
