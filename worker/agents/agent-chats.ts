/**
 * The agent panel's conversations in one workspace, one per person, kept in
 * the Workspace Durable Object's storage (where the tools already live), and
 * the event streams that show each person their own conversation live.
 */
import type { AgentChatView, AgentFileChange } from "../../protocol/agent-chat";
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { AgentChanges, type ChangeStorage } from "./agent-changes";
import { AgentChat, type ChatStorage, type ChatTurnTools, type Saved } from "./agent-chat";
import { type ChatModelEnv, chatModel } from "./chat-model";
import { approvalFor, type ChatToolCall, chatTools, DATA_RULE } from "./chat-tools";
import { chatView } from "./chat-view";
import type { ActivityRecord } from "./mcp-server";
import { AGENT_TOOLS, type ToolContext } from "./tools";

export interface AgentChatsDeps {
  storage: ChatStorage & ChangeStorage;
  env: ChatModelEnv;
  /** The workspace's features for the tools; `origin` is the IDE's (preview URLs use its scheme). */
  tools: (origin: URL) => Omit<ToolContext, "signal">;
  /** The agent activity log: the panel's calls are listed with the MCP agents' (Agents…). */
  record: (entry: ActivityRecord) => void;
}

const SYSTEM = `You are a coding agent working in a person's cloud workspace (a Linux container; the project is in /workspace). Use the tools to read, search, edit files and run commands; keep answers short. ${DATA_RULE}`;

/** The activity log's "token" for the panel's calls (no token: a person's session, in the panel). */
export const PANEL_TOKEN_ID = "agent-panel";

/** Keeps an event stream open through proxies that drop idle connections. */
const HEARTBEAT_MS = 25_000;

export class AgentChats {
  private readonly chats = new Map<string, AgentChat>();
  private readonly streams = new Map<string, Set<WritableStreamDefaultWriter<Uint8Array>>>();
  /** The files the agent changed, as they were before, for the page's diff. */
  private readonly changes: AgentChanges;

  constructor(private readonly deps: AgentChatsDeps) {
    this.changes = new AgentChanges(deps.storage);
  }

  async view(user: string): Promise<AgentChatView> {
    const chat = this.chat(user);
    return this.render(await chat.state(), chat.busy, chat.draft);
  }

  async send(user: string, text: string, origin: URL): Promise<AgentChatView> {
    const chat = this.chat(user);
    return this.render(await chat.send(text, this.turn(origin, user)), chat.busy, chat.draft);
  }

  /** `edited`: the arguments the person changed, checked against the tool's schema before anything runs. */
  async decide(
    user: string,
    approvalId: string,
    approved: boolean,
    origin: URL,
    edited?: Record<string, unknown>,
  ): Promise<AgentChatView> {
    const chat = this.chat(user);
    let input: Record<string, unknown> | undefined;
    if (approved && edited) {
      const pending = (await chat.state()).pending.find((p) => p.approvalId === approvalId);
      const tool = AGENT_TOOLS.find((t) => t.name === pending?.toolName);
      if (pending && tool) {
        const merged = { ...(pending.input as Record<string, unknown>), ...edited };
        const checked = tool.input.safeParse(merged);
        if (!checked.success) {
          const issue = checked.error.issues[0];
          throw new AppError(
            ErrorCode.BAD_REQUEST,
            `The edited ${tool.name} is not valid: ${issue?.path.join(".") || "input"}: ${issue?.message ?? "invalid"}. Nothing ran.`,
          );
        }
        input = checked.data as Record<string, unknown>;
      }
    }
    return this.render(await chat.decide(approvalId, approved, this.turn(origin, user), input), chat.busy, chat.draft);
  }

  async stop(user: string): Promise<AgentChatView> {
    const chat = this.chat(user);
    chat.stop();
    return this.view(user);
  }

  async setAutoApprove(user: string, on: boolean): Promise<AgentChatView> {
    const chat = this.chat(user);
    return this.render(await chat.setAutoApprove(on), chat.busy, chat.draft);
  }

  async clear(user: string): Promise<AgentChatView> {
    const chat = this.chat(user);
    const cleared = this.render(await chat.clear(), chat.busy, chat.draft);
    await this.changes.clear(user);
    return cleared;
  }

  /** A file as it was before one of the person's agent calls changed it (404 once no longer kept). */
  change(user: string, toolCallId: string): Promise<AgentFileChange> {
    return this.changes.get(user, toolCallId);
  }

  /** Stops every turn (the workspace is being deleted). */
  stopAll(): void {
    for (const chat of this.chats.values()) chat.stop();
  }

  /** An SSE response: the view now, then each change, until the page goes. */
  async events(user: string): Promise<Response> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const streams = this.streams.get(user) ?? new Set();
    this.streams.set(user, streams.add(writer));
    const heartbeat = setInterval(() => this.write(user, writer, ": ping\n\n"), HEARTBEAT_MS);
    writer.closed.catch(() => undefined).finally(() => clearInterval(heartbeat));
    // Padding first: some proxies hold back the first bytes of a stream.
    this.write(user, writer, `: ${" ".repeat(2048)}\nretry: 1000\n\n`);
    this.write(user, writer, event("view", await this.view(user)));
    return new Response(readable, {
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache, no-transform",
        "X-Accel-Buffering": "no",
      },
    });
  }

  private chat(user: string): AgentChat {
    let chat = this.chats.get(user);
    if (!chat) {
      chat = new AgentChat(
        this.deps.storage,
        `agent-chat:${user}`,
        (saved, running) => this.publish(user, event("view", this.render(saved, running, this.chats.get(user)?.draft))),
        (draft) => this.publish(user, event("draft", { draft })),
      );
      this.chats.set(user, chat);
    }
    return chat;
  }

  private turn(origin: URL, user: string): ChatTurnTools {
    const model = chatModel(this.deps.env);
    if (!model.ok) throw new AppError(ErrorCode.AGENT_NOT_CONFIGURED, model.problem);
    const context = this.deps.tools(origin);
    const logCall = ({ tool, toolCallId, args, outcome, message, started }: ChatToolCall) => {
      // Its own queue reports a failure to store; the call's answer does not wait for it.
      void this.changes.ran(user, toolCallId, outcome === "ok").catch(() => {});
      this.deps.record({
        at: started,
        tokenId: PANEL_TOKEN_ID,
        tokenName: `agent panel (${user})`,
        tool: tool.name,
        summary: summaryOf(tool, args),
        outcome,
        ...(message ? { message: message.slice(0, 300) } : {}),
        ms: Date.now() - started,
      });
    };
    return {
      model: model.model,
      system: SYSTEM,
      tools: chatTools(context, AGENT_TOOLS, logCall, ({ tool, toolCallId, args }) =>
        this.changes.before(user, tool.name, toolCallId, args, context.files),
      ),
      approval: (autoApprove) => approvalFor(autoApprove),
    };
  }

  private render(saved: Saved, running: boolean, draft = ""): AgentChatView {
    return chatView(saved, running, chatModel(this.deps.env), draft);
  }

  private publish(user: string, text: string): void {
    for (const writer of this.streams.get(user) ?? []) this.write(user, writer, text);
  }

  private write(user: string, writer: WritableStreamDefaultWriter<Uint8Array>, text: string): void {
    writer.write(new TextEncoder().encode(text)).catch(() => {
      // The page went: forget its stream.
      this.streams.get(user)?.delete(writer);
      writer.abort().catch(() => undefined);
    });
  }
}

/** `view`: the whole conversation (at each change); `draft`: only the agent's text as it arrives. */
function event(name: "view" | "draft", data: AgentChatView | { draft: string }): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

function summaryOf(tool: (typeof AGENT_TOOLS)[number], args: Record<string, unknown>): string {
  try {
    return tool.summarize(args).slice(0, 300);
  } catch {
    return "";
  }
}
