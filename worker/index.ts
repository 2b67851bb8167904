/**
 * The Worker: a router in front of the Workspace Durable Objects and the SPA.
 *   /api/...  JSON API (errors are `{ code, message }`)
 *   anything else: the React app (static assets, SPA fallback)
 */
import { Hono } from "hono";
import { ErrorCode } from "../protocol/errors";
import { ApiError, describe, jsonError, notFound } from "./http";
import { lifecycleRoutes } from "./routes/lifecycle";
import { workspaceRoutes } from "./routes/workspaces";
import { securityHeaders } from "./security-headers";

export { Workspace } from "./workspace";

const app = new Hono<{ Bindings: Env }>();

app.use("*", securityHeaders);

app.get("/api/health", (c) => c.json({ ok: true }));

app.route("/api/workspaces", workspaceRoutes);
app.route("/api/workspaces", lifecycleRoutes);

app.all("/api/*", () => {
  throw notFound("No such API route.");
});
app.all("/ws/*", () => {
  throw notFound("No such WebSocket route.");
});

app.all("*", (c) => c.env.ASSETS.fetch(c.req.raw));

app.onError((error) => {
  if (error instanceof ApiError) return error.toResponse();
  console.error(error);
  return jsonError(500, ErrorCode.INTERNAL, `Something went wrong: ${describe(error)}`);
});

export default app satisfies ExportedHandler<Env>;
