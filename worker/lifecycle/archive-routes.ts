import type { Sandbox } from "../sandbox/sandbox";
import type { WorkspaceRoutes } from "../workspace-router";
import { exportArchive, importArchive } from "./archive";
import type { Lifecycle } from "./lifecycle";

/** The Durable Object's streamed lifecycle routes: export and import (the Worker checked the body is there). */
export function archiveRoutes(lifecycle: Lifecycle, sandbox: Sandbox): WorkspaceRoutes {
  return {
    "GET /lifecycle/export": (_request, url) =>
      exportArchive(lifecycle, sandbox, url.searchParams.get("name") ?? "workspace"),
    "POST /lifecycle/import": async (request, url) => {
      const replace = url.searchParams.get("replace") === "true";
      // An empty body (the Worker refuses none, but a stream is needed) is refused as not gzip.
      const body = request.body ?? new ReadableStream({ start: (controller) => controller.close() });
      return Response.json(await importArchive(lifecycle, sandbox, body, replace));
    },
  };
}
