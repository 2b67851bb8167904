/**
 * One person's conversation with the agent in one workspace: the messages
 * (AI SDK model messages, kept in the Durable Object's storage, so a reload
 * finds them), the approvals it waits for, and auto-approve. A turn runs the
 * model with the registry's tools (chat-tools.ts) until it answers or asks
 * for an approval; only `decide`, which the panel's own route calls with the
 * person's choice, answers an approval. A stop ends the turn in flight.
 */
import { generateText, type LanguageModel, type ModelMessage, type ToolApprovalResponse, type ToolSet } from "ai";
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";

/** Model calls a turn may make (each tool round is one). */
export const MAX_STEPS = 20;

export interface ChatStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
}

/** An approval the conversation waits for: the tool and its input, as the panel shows them. */
export interface PendingApproval {
  approvalId: string;
  toolName: string;
  input: unknown;
}

interface Saved {
  messages: ModelMessage[];
  pending: PendingApproval[];
  autoApprove: boolean;
}

export interface ChatTurnTools {
  model: LanguageModel;
  system: string;
  tools: ToolSet;
  approval: (autoApprove: boolean) => Parameters<typeof generateText>[0]["toolApproval"];
}

export class AgentChat {
  private running: AbortController | undefined;

  constructor(
    private readonly storage: ChatStorage,
    private readonly key: string,
  ) {}

  async state(): Promise<Saved> {
    return (await this.storage.get<Saved>(this.key)) ?? { messages: [], pending: [], autoApprove: false };
  }

  async setAutoApprove(on: boolean): Promise<void> {
    await this.storage.put(this.key, { ...(await this.state()), autoApprove: on });
  }

  /** The person's message, then a turn. */
  async send(text: string, turn: ChatTurnTools): Promise<Saved> {
    const saved = await this.state();
    if (saved.pending.length > 0) {
      throw new AppError(ErrorCode.AGENT_BUSY, "Approve or reject the agent's pending action first.");
    }
    saved.messages.push({ role: "user", content: text });
    return this.turn(saved, turn);
  }

  /** The person's choice on a pending approval; when none is left, the turn goes on. */
  async decide(approvalId: string, approved: boolean, turn: ChatTurnTools): Promise<Saved> {
    const saved = await this.state();
    const pending = saved.pending.find((p) => p.approvalId === approvalId);
    if (!pending) throw new AppError(ErrorCode.NOT_FOUND, "No such pending approval: it was answered already.");
    const response: ToolApprovalResponse = {
      type: "tool-approval-response",
      approvalId,
      approved,
      ...(approved ? {} : { reason: "The person rejected it in the agent panel." }),
    };
    saved.messages.push({ role: "tool", content: [response] });
    saved.pending = saved.pending.filter((p) => p.approvalId !== approvalId);
    if (saved.pending.length > 0) {
      await this.storage.put(this.key, saved);
      return saved;
    }
    return this.turn(saved, turn);
  }

  /** Ends the turn in flight (its model call and any command it runs). */
  stop(): boolean {
    const running = this.running;
    running?.abort(new AppError(ErrorCode.AGENT_BUSY, "Stopped."));
    return running !== undefined;
  }

  private async turn(saved: Saved, { model, system, tools, approval }: ChatTurnTools): Promise<Saved> {
    if (this.running) throw new AppError(ErrorCode.AGENT_BUSY, "The agent is still working: stop it first.");
    const controller = new AbortController();
    this.running = controller;
    try {
      const result = await generateText({
        model,
        system,
        tools,
        toolApproval: approval(saved.autoApprove),
        messages: saved.messages,
        stopWhen: ({ steps }) => steps.length >= MAX_STEPS,
        abortSignal: controller.signal,
      });
      saved.messages.push(...result.responseMessages);
      saved.pending = result.content.flatMap((part) =>
        part.type === "tool-approval-request" && !part.isAutomatic
          ? [{ approvalId: part.approvalId, toolName: part.toolCall.toolName, input: part.toolCall.input }]
          : [],
      );
      await this.storage.put(this.key, saved);
      return saved;
    } finally {
      this.running = undefined;
    }
  }
}
