import { Hono } from "hono";
import { ErrorCode } from "../../protocol/errors";
import { AppError, notFound } from "../errors";
import { type AppEnv, workspaceStub } from "../workspace-access";

/** `/api/workspaces/{id}/...`: save, stop, start fresh, export, import. */
export const lifecycleRoutes = new Hono<AppEnv>();

/** Snapshot now; answers `{ snapshotId, savedAt }` once the id is stored. */
lifecycleRoutes.post("/:id/save", async (c) => c.json(await workspaceStub(c, c.req.param("id")).save()));

/** Save, then stop the container. The next use wakes it from that snapshot. */
lifecycleRoutes.post("/:id/stop", async (c) => c.json(await workspaceStub(c, c.req.param("id")).stop()));

/** After a snapshot failed to restore: forget it; the next start is a new workspace from its template. */
lifecycleRoutes.post("/:id/reset", async (c) => {
  await workspaceStub(c, c.req.param("id")).reset();
  return c.body(null, 204);
});

/** /workspace as a streamed tar.gz download. */
lifecycleRoutes.get("/:id/export", async (c) => {
  const id = c.req.param("id");
  const stub = workspaceStub(c, id);
  return stub.fetch(new Request(`https://workspace/lifecycle/export?name=${encodeURIComponent(id)}`));
});

/** A tar.gz request body unpacked into an empty /workspace (or replacing it with `?replace=true`), then saved. */
lifecycleRoutes.post("/:id/import", async (c) => {
  const stub = workspaceStub(c, c.req.param("id"));
  const body = c.req.raw.body;
  if (!body) throw new AppError(ErrorCode.INVALID_ARCHIVE, "Send the .tar.gz archive as the request body.");
  const replace = c.req.query("replace") === "true" ? "?replace=true" : "";
  return stub.fetch(new Request(`https://workspace/lifecycle/import${replace}`, { method: "POST", body }));
});

/**
 * Test hooks: shorter idle limits for one workspace, or a bogus snapshot id.
 * Only the test dev server sets CLOUD_IDE_TEST_HOOKS (vite.config.ts); a
 * deployed Worker answers 404.
 */
lifecycleRoutes.post("/:id/test-hooks/lifecycle", async (c) => {
  if ((c.env as { CLOUD_IDE_TEST_HOOKS?: string }).CLOUD_IDE_TEST_HOOKS !== "1") throw notFound("No such API route.");
  const body = (await c.req.json().catch(() => ({}))) as { overrides?: unknown; snapshotId?: unknown; image?: unknown };
  await workspaceStub(c, c.req.param("id")).testConfigure({
    overrides: body.overrides,
    snapshotId: typeof body.snapshotId === "string" ? body.snapshotId : undefined,
    image: typeof body.image === "string" ? body.image : undefined,
  });
  return c.body(null, 204);
});
