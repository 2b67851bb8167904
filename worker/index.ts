/**
 * The Worker: a router in front of the Durable Objects and the SPA.
 *   /api/...  JSON API (errors are `{ code, message }`); all but /api/health,
 *             sign-in and an invite's check and acceptance need a session
 *   /ws/...   WebSocket upgrades, same rules
 *   /api/workspaces/{id}/... and /ws/workspaces/{id}/...: forwarded to that
 *             Workspace, whose dispatcher serves its features' routes (worker/door/)
 *   /mcp/workspaces/{id}  agents' MCP endpoint: an agent token, never a session
 *   anything else: the React app (static assets, SPA fallback)
 */
import { Hono } from "hono";
import { ErrorCode } from "../protocol/errors";
import { parsePreviewLabel } from "../protocol/previews";
import type { AppEnv } from "./app-env";
import { acceptToken } from "./auth/access-token";
import { requireUser, sameOriginOnly } from "./auth/guards";
import { limitBodies } from "./body-limits";
import { withoutInternalHeaders } from "./door/entrances";
import { forwardToWorkspace } from "./door/forward";
import { AppError, notFound } from "./errors";
import { answerError, drainBody, errorResponse } from "./http";
import { previewDomainProblem } from "./previews/preview-domain";
import { handlePreviewRequest, previewHostLabel } from "./previews/preview-host";
import { accessRoutes, addSshKey, deviceClientRoutes } from "./routes/access";
import { inviteRoutes } from "./routes/invites";
import { mcpRoutes } from "./routes/mcp";
import { sessionListRoutes, sessionRoutes } from "./routes/session";
import { listWorkspaces, prepareSpare, workspaceRoutes } from "./routes/workspaces";
import { securityHeaders } from "./security-headers";

export { DeviceLogin } from "./auth/device-login";
export { SignInThrottle } from "./auth/sign-in-throttle";
export { Directory } from "./directory";
export { Outbound } from "./network/outbound";
export { ArchiveGateway } from "./sandbox/archive-gateway";
export { Workspace } from "./workspace";

const app = new Hono<AppEnv>();

app.use("*", securityHeaders);

app.get("/api/health", (c) => c.json({ ok: true }));

// Agents' MCP endpoint: a bearer token, never a session (so none of the session checks below).
app.route("/mcp/workspaces", mcpRoutes);
app.all("/mcp/*", () => {
  throw notFound("No such MCP endpoint: it is /mcp/workspaces/{id}.");
});

// A personal access token (Authorization: Bearer) is taken here and nowhere
// else: for the list of workspaces, the ssh tunnel and the CLI's own key. No cookie and no
// Origin count with one (a browser cannot attach it by itself); without
// one, these go on to the session checks below.
app.get("/api/workspaces", acceptToken(listWorkspaces));
app.get("/ws/workspaces/:id/ssh", acceptToken(forwardToWorkspace));
// The CLI registers its own key with its token (the key lasts as long as the token).
app.post("/api/ssh-keys", limitBodies, acceptToken(addSshKey));
// The command line's half of `cloud-ide login`: its device code is its secret.
app.use("/api/device", limitBodies);
app.use("/api/device/token", limitBodies);
app.route("/api/device", deviceClientRoutes);

app.use("/api/*", sameOriginOnly);
app.use("/ws/*", sameOriginOnly);
app.use("/api/session", limitBodies);
app.route("/api/session", sessionRoutes);
app.use("/api/invites/*", limitBodies);
app.route("/api/invites", inviteRoutes);
app.use("/api/*", requireUser);
app.use("/ws/*", requireUser);

// Before the door: "spare" is no workspace's id.
app.post("/api/workspaces/spare", prepareSpare);

// One workspace's routes: the Workspace checks the role, the body's length and the inputs.
app.all("/api/workspaces/:id", forwardToWorkspace);
app.all("/api/workspaces/:id/*", forwardToWorkspace);
app.all("/ws/workspaces/:id/*", forwardToWorkspace);

// The Worker's own routes (sessions, the list of workspaces): JSON bodies, limited here.
app.use("/api/*", limitBodies);
app.route("/api/sessions", sessionListRoutes);
app.route("/api", accessRoutes);
app.route("/api/workspaces", workspaceRoutes);

app.all("/api/*", () => {
  throw notFound("No such API route.");
});
app.all("/ws/*", () => {
  throw notFound("No such WebSocket route.");
});

app.all("*", (c) => c.env.ASSETS.fetch(c.req.raw));

app.onError(async (error, c) => {
  // An error answered before its body was read would break the next request on the connection.
  await drainBody(c.req.raw);
  return answerError(error, c.req.raw);
});

function badHost(): AppError {
  return new AppError(ErrorCode.BAD_REQUEST, "The request's Host header is not a host name (with an optional port).");
}

/**
 * A refused WebSocket upgrade often reaches the client as a dropped connection
 * (vite dev does that), so every refusal is logged, whoever answered it (the
 * Worker or the Durable Object): what was refused, and its status and code.
 */
async function logRefusedUpgrade(request: Request, answer: Response | Promise<Response>): Promise<Response> {
  const response = await answer;
  if (response.status !== 101) {
    const code = response.headers.get("Content-Type")?.includes("json")
      ? (
          (await response
            .clone()
            .json()
            .catch(() => undefined)) as { code?: string } | undefined
        )?.code
      : undefined;
    console.warn(
      `refused WebSocket upgrade ${new URL(request.url).pathname}: ${response.status} ${code ?? ""}`.trimEnd(),
    );
  }
  return response;
}

export default {
  fetch(received, env, ctx) {
    // Only the Worker marks how a request enters a workspace (worker/door/entrances.ts): no client's copy passes.
    const request = withoutInternalHeaders(received);
    // workerd builds the URL from the Host header as it came: a Host that is
    // no host name (`8099-a-b.127.0.0.1`, two Host headers) gives no URL.
    if (!URL.canParse(request.url)) return errorResponse(badHost());
    // Preview hostnames first, before any API routing or sign-in: their token is their permission.
    const label = previewHostLabel(request, env);
    if (label !== undefined && parsePreviewLabel(label) !== undefined) return handlePreviewRequest(request, env, label);
    // Not a preview, so the IDE itself: it serves nothing while previews share its site.
    const problem = previewDomainProblem(new URL(request.url).host, env.PREVIEW_DOMAIN);
    if (problem) {
      console.error(problem);
      return errorResponse(new AppError(ErrorCode.MISCONFIGURED, problem));
    }
    if (label !== undefined) return handlePreviewRequest(request, env, label);
    const answer = app.fetch(request, env, ctx);
    return request.headers.get("Upgrade")?.toLowerCase() === "websocket" ? logRefusedUpgrade(request, answer) : answer;
  },
} satisfies ExportedHandler<Env>;
