/**
 * The Worker: a router in front of the Workspace Durable Objects and the SPA.
 *   /api/...  JSON API (errors are `{ code, message }`)
 *   anything else: the React app (static assets, SPA fallback)
 */
import { Hono } from "hono";
import { ErrorCode } from "../protocol/errors";
import { isWorkspaceId } from "../protocol/ids";
import { ApiError, describe, jsonError, notFound } from "./http";
import { securityHeaders } from "./security-headers";

export { Workspace } from "./workspace";

const app = new Hono<{ Bindings: Env }>();

app.use("*", securityHeaders);

app.get("/api/health", (c) => c.json({ ok: true }));

app.get("/api/workspaces/:id/status", async (c) => {
  const id = workspaceId(c.req.param("id"));
  const status = await c.env.Workspace.getByName(id).status(id);
  return c.json(status);
});

app.all("/api/*", () => {
  throw notFound("No such API route.");
});

app.all("*", (c) => c.env.ASSETS.fetch(c.req.raw));

app.onError((error) => {
  if (error instanceof ApiError) return error.toResponse();
  console.error(error);
  return jsonError(500, ErrorCode.INTERNAL, `Something went wrong: ${describe(error)}`);
});

function workspaceId(value: string): string {
  if (!isWorkspaceId(value)) {
    throw new ApiError(
      400,
      ErrorCode.INVALID_WORKSPACE_ID,
      `"${value.slice(0, 80)}" is not a workspace id: use 1-63 lowercase letters and digits.`,
    );
  }
  return value;
}

export default app satisfies ExportedHandler<Env>;
