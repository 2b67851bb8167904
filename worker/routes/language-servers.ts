import { Hono } from "hono";
import { ErrorCode } from "../../protocol/errors";
import { isLanguageServerId, LANGUAGE_SERVERS } from "../../protocol/language-servers";
import { AppError } from "../errors";
import { type AppEnv, requestedWorkspace } from "../workspace-access";

/**
 * `/ws/workspaces/{id}/lsp/{language}`: a WebSocket to the workspace's
 * language server for `language`, bridged by the workspace (worker/lsp/).
 */
export const languageServerSocketRoutes = new Hono<AppEnv>();

languageServerSocketRoutes.get("/:id/lsp/:language", async (c) => {
  const { stub } = requestedWorkspace(c);
  const language = c.req.param("language");
  if (!isLanguageServerId(language)) {
    throw new AppError(
      ErrorCode.UNKNOWN_LANGUAGE,
      `No language server for "${language.slice(0, 80)}": the workspace has ${LANGUAGE_SERVERS.join(", ")}.`,
    );
  }
  // The workspace checks the upgrade after the owner, so another user's workspace is 404 either way.
  const target = new URL("/lsp", new URL(c.req.url).origin);
  target.searchParams.set("language", language);
  const wake = c.req.query("wake");
  if (wake !== undefined) target.searchParams.set("wake", wake);
  return stub.fetch(new Request(target, c.req.raw));
});
