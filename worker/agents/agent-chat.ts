/**
 * One person's conversation with the agent in one workspace: the messages
 * (AI SDK model messages, kept in the Durable Object's storage, so a reload
 * finds them), the approvals it waits for, and auto-approve. A turn runs the
 * model with the registry's tools (chat-tools.ts) until it answers or asks
 * for an approval; only `decide`, which the panel's own route calls with the
 * person's choice, answers an approval. The model's text streams: the step's
 * text so far is the draft, shown as it arrives. A stop ends the turn in
 * flight and keeps what the agent had done and said until then.
 */
import {
  type ContentPart,
  type LanguageModel,
  type ModelMessage,
  streamText,
  type ToolApprovalResponse,
  type ToolSet,
} from "ai";
import { ErrorCode } from "../../protocol/errors";
import { AppError, describe } from "../errors";

/** Model calls a turn may make (each tool round is one). */
export const MAX_STEPS = 20;

/** The draft goes to the page at most this often while the model writes (a step's end goes at once). */
export const DRAFT_INTERVAL_MS = 50;

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

/** A line for the person, not the model (a stop, a failed model call), shown after `after` messages. */
export interface ChatNotice {
  after: number;
  text: string;
}

export interface Saved {
  messages: ModelMessage[];
  pending: PendingApproval[];
  autoApprove: boolean;
  notices?: ChatNotice[];
}

export interface ChatTurnTools {
  model: LanguageModel;
  system: string;
  tools: ToolSet;
  approval: (autoApprove: boolean) => Parameters<typeof streamText>[0]["toolApproval"];
}

export class AgentChat {
  private running: AbortController | undefined;
  private text = "";
  private draftTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly storage: ChatStorage,
    private readonly key: string,
    /** Told of every change (the panel's event stream), with whether a turn runs. */
    private readonly changed: (saved: Saved, running: boolean) => void = () => {},
    /** Told of the draft as the model writes it, at most every DRAFT_INTERVAL_MS. */
    private readonly drafted: (draft: string) => void = () => {},
  ) {}

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** The text of the model's step in flight, as far as it came ("" between steps and turns). */
  get draft(): string {
    return this.text;
  }

  async state(): Promise<Saved> {
    return (await this.storage.get<Saved>(this.key)) ?? { messages: [], pending: [], autoApprove: false };
  }

  async setAutoApprove(on: boolean): Promise<Saved> {
    const saved = { ...(await this.state()), autoApprove: on };
    await this.save(saved);
    return saved;
  }

  /** Forgets the conversation (auto-approve stays as it was). */
  async clear(): Promise<Saved> {
    if (this.running) throw new AppError(ErrorCode.AGENT_BUSY, "The agent is still working: stop it first.");
    const saved: Saved = { messages: [], pending: [], autoApprove: (await this.state()).autoApprove };
    await this.save(saved);
    return saved;
  }

  /** The person's message, then a turn. */
  async send(text: string, turn: ChatTurnTools): Promise<Saved> {
    if (this.running) throw new AppError(ErrorCode.AGENT_BUSY, "The agent is still working: stop it first.");
    const saved = await this.state();
    if (saved.pending.length > 0) {
      throw new AppError(ErrorCode.AGENT_BUSY, "Approve or reject the agent's pending action first.");
    }
    saved.messages.push({ role: "user", content: text });
    return this.turn(saved, turn);
  }

  /**
   * The person's choice on a pending approval; when none is left, the turn
   * goes on. `edited`: approved with the arguments the person changed (the
   * stored call is changed to them, so what runs and what the model sees
   * afterwards is what the person approved).
   */
  async decide(
    approvalId: string,
    approved: boolean,
    turn: ChatTurnTools,
    edited?: Record<string, unknown>,
  ): Promise<Saved> {
    if (this.running) throw new AppError(ErrorCode.AGENT_BUSY, "The agent is still working: stop it first.");
    const saved = await this.state();
    const pending = saved.pending.find((p) => p.approvalId === approvalId);
    if (!pending) throw new AppError(ErrorCode.NOT_FOUND, "No such pending approval: it was answered already.");
    if (approved && edited) editCall(saved.messages, approvalId, edited);
    const response: ToolApprovalResponse = {
      type: "tool-approval-response",
      approvalId,
      approved,
      ...(approved ? {} : { reason: "The person rejected it in the agent panel." }),
    };
    // All answers to one step's approvals go in one tool message: the AI SDK reads only the last one.
    const last = saved.messages.at(-1);
    if (last?.role === "tool" && last.content.every((part) => part.type === "tool-approval-response")) {
      last.content.push(response);
    } else {
      saved.messages.push({ role: "tool", content: [response] });
    }
    if (approved && edited) {
      saved.notices = [...(saved.notices ?? []), { after: saved.messages.length, text: "Approved as you edited it." }];
    }
    saved.pending = saved.pending.filter((p) => p.approvalId !== approvalId);
    if (saved.pending.length > 0) {
      await this.save(saved);
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
    // Each step as it ends, for the page (and kept if the turn is stopped).
    const live = [...saved.messages];
    try {
      // Kept before the model answers: a reload meanwhile shows the person's message.
      await this.save(saved);
      const result = streamText({
        model,
        system,
        tools,
        toolApproval: approval(saved.autoApprove),
        messages: saved.messages,
        stopWhen: ({ steps }) => steps.length >= MAX_STEPS,
        abortSignal: controller.signal,
        maxRetries: 0,
        // A failed call is an "error" part of the stream, handled below.
        onError: () => {},
        onStepEnd: (step) => {
          live.push(...stepMessages(step.content));
          this.setDraft("");
          this.changed({ ...saved, messages: live }, true);
        },
      });
      let failure: unknown;
      for await (const part of result.stream) {
        if (part.type === "text-delta") this.setDraft(this.text + part.text);
        else if (part.type === "error") failure ??= part.error;
      }
      if (controller.signal.aborted) throw controller.signal.reason;
      if (failure !== undefined) throw failure;
      saved.messages.push(...(await result.responseMessages));
      saved.pending = (await result.content).flatMap((part) =>
        part.type === "tool-approval-request" && !part.isAutomatic
          ? [{ approvalId: part.approvalId, toolName: part.toolCall.toolName, input: part.toolCall.input }]
          : [],
      );
      this.setDraft("");
      this.running = undefined;
      await this.save(saved);
      return saved;
    } catch (error) {
      const stopped = controller.signal.aborted;
      if (stopped) {
        // What the agent did and said before the stop stays, as a person saw it.
        const said = this.text.trim() ? this.text : "";
        saved.messages = [...live, ...(said ? [{ role: "assistant" as const, content: said }] : [])];
      }
      // After a failure, what the model did in this turn is lost; the person's message stays.
      const text = stopped
        ? "Stopped."
        : `The model did not answer: ${describe(error)}. Check the model's configuration (AGENT_OPENAI_BASE_URL, AGENT_MODEL, the AGENT_OPENAI_API_KEY secret, or the AI binding), then send again.`;
      saved.notices = [...(saved.notices ?? []), { after: saved.messages.length, text }];
      this.setDraft("");
      this.running = undefined;
      await this.save(saved);
      if (stopped) return saved;
      throw new AppError(ErrorCode.AGENT_MODEL_FAILED, text);
    } finally {
      this.running = undefined;
    }
  }

  /** Sets the draft; the page hears of it on the next tick of the interval, or at once when it is cleared. */
  private setDraft(text: string): void {
    this.text = text;
    if (text === "") {
      clearTimeout(this.draftTimer);
      this.draftTimer = undefined;
      return;
    }
    this.draftTimer ??= setTimeout(() => {
      this.draftTimer = undefined;
      this.drafted(this.text);
    }, DRAFT_INTERVAL_MS);
  }

  private async save(saved: Saved): Promise<void> {
    await this.storage.put(this.key, saved);
    this.changed(saved, this.running !== undefined);
  }
}

/**
 * Replaces the arguments of the call an approval asks about, with arguments
 * already checked against the tool's schema (its output: the AI SDK runs an
 * approved call only if its arguments are what the schema makes of the
 * approval's recorded input, so that input becomes the same).
 */
function editCall(messages: ModelMessage[], approvalId: string, input: Record<string, unknown>): void {
  let toolCallId: string | undefined;
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const part of message.content) {
      if (part.type === "tool-approval-request" && part.approvalId === approvalId) {
        toolCallId = part.toolCallId;
        if ("inputSchemaInput" in part) Object.assign(part, { inputSchemaInput: input });
      }
    }
  }
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const part of message.content) {
      if (part.type === "tool-call" && part.toolCallId === toolCallId) part.input = input;
    }
  }
}

/** A step's text, calls and their answers as model messages, to show a turn's progress. */
function stepMessages(content: readonly ContentPart<ToolSet>[]): ModelMessage[] {
  const said: Extract<ModelMessage, { role: "assistant" }>["content"] = [];
  const answered: Extract<ModelMessage, { role: "tool" }>["content"] = [];
  for (const part of content) {
    if (part.type === "text") said.push({ type: "text", text: part.text });
    else if (part.type === "tool-call") {
      said.push({ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    } else if (part.type === "tool-result") {
      const value = typeof part.output === "string" ? part.output : JSON.stringify(part.output ?? null);
      answered.push({
        type: "tool-result",
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: { type: "text", value },
      });
    } else if (part.type === "tool-error") {
      answered.push({
        type: "tool-result",
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: { type: "error-text", value: describe(part.error) },
      });
    }
  }
  const messages: ModelMessage[] = [];
  if (Array.isArray(said) && said.length > 0) messages.push({ role: "assistant", content: said });
  if (answered.length > 0) messages.push({ role: "tool", content: answered });
  return messages;
}
