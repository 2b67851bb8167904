/**
 * The Workspace Durable Object's HTTP surface: one table, `"METHOD /path"`
 * to a handler. The Worker has already checked the session, the origin, the
 * owner and every input it names (workspace id, terminal name); it forwards
 * the request with the caller in CALLER_HEADER.
 */
import { ErrorCode } from "../protocol/errors";
import { AppError } from "./errors";
import { answerError } from "./http";

export type WorkspaceRoute = (request: Request, url: URL) => Promise<Response>;
export type WorkspaceRoutes = Record<`${"GET" | "POST" | "PUT" | "DELETE"} /${string}`, WorkspaceRoute>;

export function routeWorkspaceRequest(routes: WorkspaceRoutes, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const route = (routes as Record<string, WorkspaceRoute>)[`${request.method} ${url.pathname}`];
  return (async () => {
    try {
      if (!route)
        throw new AppError(ErrorCode.NOT_FOUND, `The workspace has no route ${request.method} ${url.pathname}.`);
      return await route(request, url);
    } catch (error) {
      return answerError(error, request, "workspace");
    }
  })();
}
