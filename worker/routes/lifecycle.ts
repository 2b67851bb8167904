import { Hono } from "hono";
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { type AppEnv, requestedWorkspace } from "../workspace-access";

/** `/api/workspaces/{id}/...`: save, stop, start fresh, export, import. */
export const lifecycleRoutes = new Hono<AppEnv>();

/** Snapshot now; answers `{ snapshotId, savedAt }` once the id is stored. */
lifecycleRoutes.post("/:id/save", async (c) => c.json(await requestedWorkspace(c).stub.save()));

/** Save, then stop the container. The next use wakes it from that snapshot. */
lifecycleRoutes.post("/:id/stop", async (c) => c.json(await requestedWorkspace(c).stub.stop()));

/** After a snapshot failed to restore: forget it; the next start is a new workspace from its template. */
lifecycleRoutes.post("/:id/reset", async (c) => {
  await requestedWorkspace(c).stub.reset();
  return c.body(null, 204);
});

/** /workspace as a streamed tar.gz download. */
lifecycleRoutes.get("/:id/export", async (c) => {
  const { id, stub } = requestedWorkspace(c);
  return stub.fetch(new Request(`https://workspace/lifecycle/export?name=${encodeURIComponent(id)}`));
});

/** A tar.gz request body unpacked into an empty /workspace (or replacing it with `?replace=true`), then saved. */
lifecycleRoutes.post("/:id/import", async (c) => {
  const { stub } = requestedWorkspace(c);
  const body = c.req.raw.body;
  if (!body) throw new AppError(ErrorCode.INVALID_ARCHIVE, "Send the .tar.gz archive as the request body.");
  const replace = c.req.query("replace") === "true" ? "?replace=true" : "";
  return stub.fetch(new Request(`https://workspace/lifecycle/import${replace}`, { method: "POST", body }));
});
