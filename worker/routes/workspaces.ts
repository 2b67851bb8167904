import { Hono } from "hono";
import { newWorkspaceId } from "../../protocol/ids";
import { type AppEnv, checkWorkspaceId, workspaceStub } from "../workspace-access";

/** `/api/workspaces` */
export const workspaceRoutes = new Hono<AppEnv>();

workspaceRoutes.post("/", async (c) => {
  const body = (await c.req.json().catch(() => ({}))) as { name?: unknown };
  const name = typeof body.name === "string" && body.name.trim() ? body.name.trim() : "Untitled";
  return c.json({ id: newWorkspaceId(), name }, 201);
});

/** Starts or wakes the workspace; `?wake=0` only reports (for polling: it does not count as use). */
workspaceRoutes.get("/:id/status", async (c) => {
  const id = checkWorkspaceId(c.req.param("id"));
  const stub = workspaceStub(c, id);
  return c.json(await (c.req.query("wake") === "0" ? stub.peek(id) : stub.status(id)));
});
