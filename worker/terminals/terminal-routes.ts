import { z } from "zod";
import { ErrorCode } from "../../protocol/errors";
import { isTerminalName } from "../../protocol/terminal";
import { none, refusal } from "../door/schema";
import { describe, notFound } from "../errors";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";
import { endTerminal, listTerminals, openTerminal, refuseTerminal, terminalSleeping } from "./terminal-bridge";

/**
 * Terminals: tmux sessions in the container, each bridged to WebSockets.
 */
const name = z.string().refine(
  isTerminalName,
  refusal(
    ErrorCode.INVALID_TERMINAL_NAME,
    (value) =>
      `"${String(value).slice(0, 80)}" is not a terminal name: use 1-63 lowercase letters, digits and hyphens, starting with a letter or digit.`,
  ),
);

export const TERMINAL_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "GET",
    path: "/terminals",
    role: "viewer",
    wake: "never",
    doc: "The terminals (tmux sessions): `[{name, command, busy}]` (`command` is what runs in the foreground); `[]` when the container is not running.",
    input: { query: none },
    handle: async ({ workspace }) =>
      Response.json(workspace.lifecycle.isRunning ? await listTerminals(workspace.sandbox) : []),
  }),
  defineRoute({
    method: "DELETE",
    path: "/terminals/:name",
    role: "editor",
    wake: "never",
    doc: "Ends the terminal and what runs in it: 204, or 404.",
    input: { params: z.object({ name }) },
    handle: async ({ params, workspace }) => {
      const ended = workspace.lifecycle.isRunning && (await endTerminal(workspace.sandbox, params.name));
      if (!ended) throw notFound(`The workspace has no terminal named "${params.name}".`);
      return new Response(null, { status: 204 });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/terminals/:name",
    socket: true,
    connection: "terminal",
    // A viewer watches (read-only: openTerminal refuses their input).
    role: "viewer",
    wake: "wake",
    doc: "The terminal's WebSocket, sized `cols` x `rows`; a viewer watches (their input is refused). `wake=0` (an automatic reconnect) leaves a sleeping workspace asleep. It closes with the session that opened it.",
    input: {
      params: z.object({ name }),
      query: z.object({ cols: z.string().optional(), rows: z.string().optional(), wake: z.string().optional() }),
    },
    handle: async ({ params, query, request, caller, workspace }) => {
      const { lifecycle } = workspace;
      // Automatic reconnects ask not to wake a sleeping workspace (an open tab is
      // not use); a container that vanished is brought back for them.
      if (query.wake === "0" && lifecycle.isAsleep()) return terminalSleeping(lifecycle.failureMessage);
      try {
        await lifecycle.ensureRunning();
      } catch (error) {
        return refuseTerminal(`The container could not start: ${describe(error)}`);
      }
      // Its session is remembered with it: ending that session closes the socket.
      let forget = () => {};
      return openTerminal(workspace.sandbox, request, params.name, {
        readOnly: caller.role === "viewer",
        begin: (close) => {
          lifecycle.activity.begin();
          forget = workspace.sockets.add(caller.session, close, caller.id, "terminal");
        },
        end: () => {
          forget();
          lifecycle.activity.end();
        },
      });
    },
  }),
];
