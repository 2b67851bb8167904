import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { errorResponse } from "../http";
import type { Sandbox } from "../sandbox/sandbox";
import { exportArchive, importArchive } from "./archive";
import type { Lifecycle } from "./lifecycle";

/** The Durable Object's `/lifecycle/` routes: the streamed ones (export, import). */
export async function handleLifecycleFetch(
  lifecycle: Lifecycle,
  sandbox: Sandbox,
  request: Request,
): Promise<Response> {
  const url = new URL(request.url);
  try {
    if (url.pathname === "/lifecycle/export" && request.method === "GET") {
      return await exportArchive(lifecycle, sandbox, url.searchParams.get("name") ?? "workspace");
    }
    if (url.pathname === "/lifecycle/import" && request.method === "POST") {
      if (!request.body) throw new AppError(ErrorCode.INVALID_ARCHIVE, "Send the .tar.gz archive as the request body.");
      const replace = url.searchParams.get("replace") === "true";
      return Response.json(await importArchive(lifecycle, sandbox, request.body, replace));
    }
    return errorResponse(new AppError(ErrorCode.NOT_FOUND, `The workspace has no route ${url.pathname}.`));
  } catch (error) {
    if (error instanceof AppError) return errorResponse(error);
    throw error;
  }
}
