import { Hono } from "hono";
import { ErrorCode } from "../../protocol/errors";
import { isTerminalName } from "../../protocol/terminal";
import { AppError, notFound } from "../errors";
import { type AppEnv, requestedWorkspace } from "../workspace-access";

/** `/api/workspaces/{id}/terminals`: list and end terminals. */
export const terminalRoutes = new Hono<AppEnv>();

terminalRoutes.get("/:id/terminals", async (c) => {
  return c.json(await requestedWorkspace(c).stub.listTerminals());
});

terminalRoutes.delete("/:id/terminals/:name", async (c) => {
  const { stub } = requestedWorkspace(c);
  const name = checkTerminalName(c.req.param("name"));
  if (!(await stub.endTerminal(name))) throw notFound(`The workspace has no terminal named "${name}".`);
  return c.body(null, 204);
});

/** `/ws/workspaces/{id}/terminals/{name}`: the terminal's WebSocket, bridged by the workspace. */
export const terminalSocketRoutes = new Hono<AppEnv>();

terminalSocketRoutes.get("/:id/terminals/:name", async (c) => {
  const { stub } = requestedWorkspace(c);
  const name = checkTerminalName(c.req.param("name"));
  if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
    throw new AppError(ErrorCode.UPGRADE_REQUIRED, "This is a WebSocket route: connect with a WebSocket client.");
  }
  // The workspace sees its own path, with the size the client asked for and
  // whether this connection may wake a sleeping workspace.
  const url = new URL(c.req.url);
  const target = new URL("/terminals", url.origin);
  target.searchParams.set("name", name);
  for (const key of ["cols", "rows", "wake"]) {
    const value = url.searchParams.get(key);
    if (value !== null) target.searchParams.set(key, value);
  }
  // A refusal by the workspace (another user's, or deleted) is logged by worker/index.ts, as every refused upgrade.
  return stub.fetch(new Request(target, c.req.raw));
});

function checkTerminalName(value: string): string {
  if (!isTerminalName(value)) {
    throw new AppError(
      ErrorCode.INVALID_TERMINAL_NAME,
      `"${value.slice(0, 80)}" is not a terminal name: use 1-63 lowercase letters, digits and hyphens, starting with a letter or digit.`,
    );
  }
  return value;
}
