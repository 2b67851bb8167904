import { z } from "zod";
import { ErrorCode } from "../../protocol/errors";
import { isLanguageServerId, LANGUAGE_SERVERS } from "../../protocol/language-servers";
import { refusal } from "../door/schema";
import { AppError } from "../errors";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";

/**
 * A page's WebSocket to the workspace's language server for a language (one
 * per language, shared by every page).
 */
export const LSP_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "GET",
    path: "/lsp/:language",
    socket: true,
    connection: "lsp",
    role: "editor",
    wake: "wake",
    doc: "The workspace's language server for `language` (one per language, shared by every page); 400 UNKNOWN_LANGUAGE for one it has not. `wake=0` (an automatic reconnect) leaves a sleeping workspace asleep. It closes with the session that opened it.",
    input: {
      params: z.object({
        language: z.string().refine(
          isLanguageServerId,
          refusal(
            ErrorCode.UNKNOWN_LANGUAGE,
            (value) =>
              `No language server for "${String(value).slice(0, 80)}": the workspace has ${LANGUAGE_SERVERS.join(", ")}.`,
          ),
        ),
      }),
      query: z.object({ wake: z.string().optional() }),
    },
    handle: async ({ params, query, caller, workspace }) => {
      const { lifecycle } = workspace;
      if (query.wake === "0" && lifecycle.isAsleep()) {
        throw new AppError(
          ErrorCode.WORKSPACE_ASLEEP,
          "The workspace is asleep; open a file or a terminal to wake it.",
        );
      }
      await lifecycle.ensureRunning();
      let forget = () => {};
      return workspace.languageServers.open(params.language, {
        onMessage: () => lifecycle.activity.touch(),
        onOpen: (close) => {
          forget = workspace.sockets.add(caller.session, close, caller.id, "lsp");
        },
        onClose: () => forget(),
      });
    },
  }),
];
