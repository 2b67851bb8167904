import { z } from "zod";
import {
  type AutoApproveRequest,
  type DecideApprovalRequest,
  MAX_CHAT_MESSAGE_LENGTH,
  type SendChatMessageRequest,
} from "../../protocol/agent-chat";
import { ErrorCode } from "../../protocol/errors";
import type { Body } from "../door/route";
import { none, refusal } from "../door/schema";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";

/**
 * `/api/workspaces/{id}/agent-chat...`: the agent panel, each person's own
 * conversation (worker/agents/agent-chats.ts). An editor's: the agent
 * changes files and runs commands, which a viewer may not. Every answer is
 * the conversation as the panel shows it (AgentChatView).
 *
 * Only these routes, which the person's own page calls, answer an approval:
 * nothing the agent reads or runs reaches them (tool output is data to the
 * model, and the tools have no way to call the IDE's API as the person).
 */
const send = z.object({
  text: z
    .unknown()
    .refine(
      (text) => typeof text === "string" && text.trim().length > 0 && text.length <= MAX_CHAT_MESSAGE_LENGTH,
      refusal(ErrorCode.BAD_REQUEST, `text must be a message of 1 to ${MAX_CHAT_MESSAGE_LENGTH} characters.`),
    )
    .transform((text) => text as string),
}) satisfies Body<SendChatMessageRequest>;

const decide = z.object({
  approved: z
    .unknown()
    .refine(
      (approved) => typeof approved === "boolean",
      refusal(ErrorCode.BAD_REQUEST, "approved must be true (run it) or false (reject it)."),
    )
    .transform((approved) => approved as boolean),
  input: z
    .unknown()
    .optional()
    .refine(
      (input) => input === undefined || (typeof input === "object" && input !== null && !Array.isArray(input)),
      refusal(
        ErrorCode.BAD_REQUEST,
        'input must be an object of the tool\'s arguments to change, such as {"command": "…"}.',
      ),
    )
    .transform((input) => input as Record<string, unknown> | undefined),
}) satisfies Body<DecideApprovalRequest>;

const autoApprove = z.object({
  on: z
    .unknown()
    .refine(
      (on) => typeof on === "boolean",
      refusal(ErrorCode.BAD_REQUEST, "on must be true (run writes and commands without asking) or false."),
    )
    .transform((on) => on as boolean),
}) satisfies Body<AutoApproveRequest>;

export const AGENT_CHAT_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "GET",
    path: "/agent-chat",
    role: "editor",
    wake: "never",
    doc: "The caller's own conversation with the agent, as the panel shows it: AgentChatView `{model, entries, draft, autoApprove, running}` (protocol/agent-chat.ts).",
    input: { query: none },
    handle: async ({ caller, workspace }) => Response.json(await workspace.agentChats.view(caller.id)),
  }),
  defineRoute({
    method: "GET",
    path: "/agent-chat/events",
    connection: "agent-chat",
    role: "editor",
    wake: "never",
    doc: "Server-sent events: a `view` event with the conversation now, then one at each change, and `draft` events `{draft}` while the agent writes. It ends with the caller's session.",
    input: { query: none },
    handle: ({ caller, workspace }) => workspace.agentChats.events(caller.id),
  }),
  defineRoute({
    method: "POST",
    path: "/agent-chat/messages",
    role: "editor",
    wake: "wake",
    doc: "`{text}`: the person's message; answers the conversation when the turn ends (the agent answered, or waits for an approval). 409 AGENT_BUSY while a turn runs or an approval waits; 503 AGENT_NOT_CONFIGURED; 502 AGENT_MODEL_FAILED (the message is kept, with a notice).",
    input: { body: { json: send } },
    handle: async ({ body, caller, url, workspace }) =>
      Response.json(await workspace.agentChats.send(caller.id, body.text, url)),
  }),
  defineRoute({
    method: "POST",
    path: "/agent-chat/approvals/:approvalId",
    role: "editor",
    wake: "wake",
    doc: '`{approved, input?}`: the person\'s choice: approving runs the tool call (as edited, with `input` such as `{"command": "..."}`), rejecting never does; the turn goes on once every approval of the step is answered. Answers the conversation; 404 for an approval answered already.',
    input: { params: z.object({ approvalId: z.string().min(1).max(200) }), body: { json: decide } },
    handle: async ({ params, body, caller, url, workspace }) =>
      Response.json(await workspace.agentChats.decide(caller.id, params.approvalId, body.approved, url, body.input)),
  }),
  defineRoute({
    method: "POST",
    path: "/agent-chat/stop",
    role: "editor",
    wake: "never",
    doc: "Ends the turn in flight; answers the conversation.",
    input: { body: { json: none, optional: true } },
    handle: async ({ caller, workspace }) => Response.json(await workspace.agentChats.stop(caller.id)),
  }),
  defineRoute({
    method: "PUT",
    path: "/agent-chat/auto-approve",
    role: "editor",
    wake: "never",
    doc: "`{on}`: writes and commands run without asking, in this conversation; answers the conversation.",
    input: { body: { json: autoApprove } },
    handle: async ({ body, caller, workspace }) =>
      Response.json(await workspace.agentChats.setAutoApprove(caller.id, body.on)),
  }),
  defineRoute({
    method: "GET",
    path: "/agent-chat/changes/:toolCallId",
    role: "editor",
    wake: "never",
    doc: "`{toolCallId, path, before, created}`: the file as it was before that call of the caller's agent wrote or edited it (the editor's diff). 404 NOT_FOUND for another person's call, a call that changed nothing, or one no longer kept.",
    input: { params: z.object({ toolCallId: z.string().min(1).max(200) }), query: none },
    handle: async ({ params, caller, workspace }) =>
      Response.json(await workspace.agentChats.change(caller.id, params.toolCallId)),
  }),
  defineRoute({
    method: "DELETE",
    path: "/agent-chat",
    role: "editor",
    wake: "never",
    doc: "Forgets the conversation (409 while a turn runs); answers the empty conversation.",
    input: { query: none },
    handle: async ({ caller, workspace }) => Response.json(await workspace.agentChats.clear(caller.id)),
  }),
];
