/**
 * Test only: the Outbound entrypoint of the test Worker. Requests the policy
 * allows to hosts under `egress.test` are answered here, with what arrived
 * (each header's value as a SHA-256, so a secret is proven to arrive without
 * its value ever reaching the container); other allowed hosts are fetched
 * as in production. Tests reach no outside address but the npm registry.
 * At http(s)://git.egress.test/repo.git it serves a one-commit Git
 * repository (dumb-git-repository.ts) for clone tests, and the same at
 * /private.git only to requests carrying TEST_TOKEN (credential tests).
 * silent.egress.test never answers (until the Outbound's deadline, shortened
 * to SILENT_DEADLINE_MS for it, gives up: issue 45).
 */

import { basicAuthorization } from "../../protocol/network";
import { Outbound } from "../network/outbound";
import { repositoryFile } from "./dumb-git-repository";
import { TEST_PRIVATE_PATH, TEST_REPOSITORY_HOST, TEST_REPOSITORY_PATH, TEST_TOKEN } from "./test-git-hosts";

export const TEST_EGRESS_DOMAIN = "egress.test";
export const SILENT_HOST = `silent.${TEST_EGRESS_DOMAIN}`;
const SILENT_DEADLINE_MS = 3_000;

export class TestOutbound extends Outbound {
  protected override answerDeadlineMs(url: URL): number {
    return url.hostname === SILENT_HOST ? SILENT_DEADLINE_MS : super.answerDeadlineMs(url);
  }

  protected override async forward(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.hostname !== TEST_EGRESS_DOMAIN && !url.hostname.endsWith(`.${TEST_EGRESS_DOMAIN}`)) {
      return super.forward(request);
    }
    if (url.hostname === SILENT_HOST) {
      // An upstream that takes the request and never answers: only the abort ends the wait.
      return new Promise<Response>((_, reject) => {
        request.signal.addEventListener("abort", () => reject(new Error("abandoned")), { once: true });
      });
    }
    if (url.hostname === TEST_REPOSITORY_HOST && url.pathname.startsWith(`${TEST_PRIVATE_PATH}/`)) {
      if (request.headers.get("Authorization") !== basicAuthorization("git", TEST_TOKEN)) {
        return new Response("authentication required\n", {
          status: 401,
          headers: { "WWW-Authenticate": 'Basic realm="test"' },
        });
      }
      const file = await repositoryFile(url.pathname.slice(TEST_PRIVATE_PATH.length));
      return file ? new Response(file as BodyInit) : new Response("not found\n", { status: 404 });
    }
    if (url.hostname === TEST_REPOSITORY_HOST && url.pathname.startsWith(`${TEST_REPOSITORY_PATH}/`)) {
      // A plain file (no smart-protocol content type), so git falls back to the dumb protocol.
      const file = await repositoryFile(url.pathname.slice(TEST_REPOSITORY_PATH.length));
      return file
        ? new Response(file as BodyInit, { headers: { "Content-Type": "application/octet-stream" } })
        : new Response("not found\n", { status: 404 });
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers) headers[name] = await sha256(value);
    return Response.json({
      handledBy: "TestOutbound",
      method: request.method,
      url: request.url,
      body: await request.text(),
      headerHashes: headers,
    });
  }
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
