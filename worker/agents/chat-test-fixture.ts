// What the agent panel's unit tests share: a scripted model's steps, the
// Durable Object's storage in memory, and a turn over a tool registry.
// Imported by tests only.
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import type { ChatStorage, ChatTurnTools } from "./agent-chat";
import { approvalFor, chatTools, DATA_RULE } from "./chat-tools";
import type { AgentTool, ToolContext } from "./tools";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** One model step that calls tools: `[id, tool, input]` each, after an optional text. */
export function toolCalls(calls: [id: string, tool: string, input: object][], text?: string) {
  return {
    content: [
      ...(text === undefined ? [] : [{ type: "text" as const, text }]),
      ...calls.map(([toolCallId, toolName, input]) => ({
        type: "tool-call" as const,
        toolCallId,
        toolName,
        input: JSON.stringify(input),
      })),
    ],
    finishReason: { unified: "tool-calls" as const, raw: undefined },
    usage,
    warnings: [],
  };
}

/** A step that says "Running it." and calls run_command with `text`. */
export const runCall = (id: string, text: string) => toolCalls([[id, "run_command", { text }]], "Running it.");

/** A last step: text, and the turn ends. */
export const say = (text: string) => ({
  content: [{ type: "text" as const, text }],
  finishReason: { unified: "stop" as const, raw: undefined },
  usage,
  warnings: [],
});

/** What a provider's stream carries (the provider package is not one of ours to import). */
type LanguageModelV4StreamPart =
  Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;

type Step = ReturnType<typeof say> | ReturnType<typeof toolCalls>;

/**
 * A model that streams `steps` in order, one per call, as a provider does:
 * each text in a few deltas (the panel shows an answer as it arrives), then
 * the calls, then the step's finish; `chunkDelayInMs` apart, when given.
 */
export function streamingModel(steps: Step[], chunkDelayInMs?: number): MockLanguageModelV4 {
  return new MockLanguageModelV4({ doStream: steps.map((step) => ({ stream: streamOf(step, chunkDelayInMs) })) });
}

function streamOf(step: Step, chunkDelayInMs: number | undefined): ReadableStream<LanguageModelV4StreamPart> {
  const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
  step.content.forEach((part, index) => {
    if (part.type === "text") {
      const id = `t${index}`;
      parts.push({ type: "text-start", id });
      for (const delta of part.text.match(/.{1,4}/gs) ?? []) parts.push({ type: "text-delta", id, delta });
      parts.push({ type: "text-end", id });
    } else {
      parts.push(part);
    }
  });
  parts.push({ type: "finish", finishReason: step.finishReason, usage: step.usage });
  return simulateReadableStream({ chunks: parts, chunkDelayInMs: chunkDelayInMs ?? null });
}

/** Storage as the Durable Object's: values copied in and out (structured clone). */
export function memoryStorage(): ChatStorage {
  const map = new Map<string, unknown>();
  return {
    get: async <T>(key: string) => structuredClone(map.get(key)) as T | undefined,
    put: async (key, value) => void map.set(key, structuredClone(value)),
  };
}

/** A write tool named run_command that `run`s its `text`. */
export function commandTool(
  run: (args: Record<string, unknown>) => Promise<string>,
  input = z.object({ text: z.string() }),
): AgentTool {
  return { name: "run_command", title: "run", description: "run", scope: "write", input, summarize: () => "", run };
}

/** run_command that records each text it runs in `runs` and answers `answer`. */
export function recordingCommand(runs: string[], answer = (text: string) => `ran ${text}`): AgentTool {
  return commandTool(async (args) => {
    runs.push(String(args.text));
    return answer(String(args.text));
  });
}

/** A turn of `model` over `registry`, with the panel's approval rule and data rule. */
export function turnOver(model: MockLanguageModelV4, registry: AgentTool[]): ChatTurnTools {
  return {
    model,
    system: DATA_RULE,
    tools: chatTools({} as Omit<ToolContext, "signal">, registry),
    approval: (auto) => approvalFor(auto, registry),
  };
}
