/**
 * The ArchiveGateway entrypoint: the container's requests to ARCHIVE_HOST
 * (archive-transfers.ts) arrive here, registered for that one hostname and
 * that one container (its props name the workspace), and are handed to the
 * workspace's Durable Object. Anything else is refused; nothing is forwarded.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { UploadOutcome } from "./archive-transfers";

export interface ArchiveGatewayProps {
  /** The workspace's Durable Object id (`ctx.id.toString()`). */
  workspace: string;
}

/** What the gateway needs of the Workspace (its RPC methods). */
export interface ArchiveEndpoint {
  archiveReceive(token: string, body: ReadableStream<Uint8Array>): Promise<UploadOutcome>;
  archiveSend(token: string): Promise<ReadableStream<Uint8Array> | null>;
}

const TOKEN = /^\/([0-9a-f]{32})$/;

export class ArchiveGateway extends WorkerEntrypoint<Env, ArchiveGatewayProps> {
  override async fetch(request: Request): Promise<Response> {
    const token = URL.canParse(request.url) ? TOKEN.exec(new URL(request.url).pathname)?.[1] : undefined;
    if (!token) return text(404, "no such transfer");
    try {
      const workspace = this.workspace();
      if (request.method === "PUT" && request.body) {
        const outcome = await workspace.archiveReceive(token, request.body);
        return outcome.ok ? new Response(null, { status: 204 }) : text(409, outcome.message ?? "refused");
      }
      if (request.method === "GET") {
        const body = await workspace.archiveSend(token);
        return body
          ? new Response(body, { headers: { "Content-Type": "application/zstd" } })
          : text(404, "no such transfer");
      }
      return text(405, "PUT or GET only");
    } catch (error) {
      console.error("archive gateway:", error);
      return text(502, "the transfer failed");
    }
  }

  private workspace(): ArchiveEndpoint {
    const namespace = this.env.Workspace;
    return namespace.get(namespace.idFromString(this.ctx.props.workspace)) as unknown as ArchiveEndpoint;
  }
}

function text(status: number, message: string): Response {
  return new Response(`${message}\n`, { status, headers: { "Content-Type": "text/plain" } });
}
