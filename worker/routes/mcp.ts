import { Hono } from "hono";
import { agentTokenWorkspace } from "../../protocol/agents";
import { refusal } from "../agents/agent-gateway";
import { refused } from "../agents/agent-tokens";
import { MCP_MAX_BODY_BYTES } from "../agents/mcp-server";
import type { AppEnv } from "../app-env";
import { tooLarge } from "../body-limits";
import { enter } from "../door/entrances";
import { checkWorkspaceId } from "../door/forward";
import { drainBody } from "../http";

/**
 * `/mcp/workspaces/{id}`: the MCP endpoint (Streamable HTTP) for agents,
 * with `Authorization: Bearer TOKEN`. No session, cookie or Origin counts
 * here: the Worker only checks that the token is shaped like one and names
 * this workspace, then forwards it to the workspace, which checks it
 * against the hashes it keeps.
 */
export const mcpRoutes = new Hono<AppEnv>();

mcpRoutes.all("/:id", async (c) => {
  const id = checkWorkspaceId(c.req.param("id"));
  const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("Authorization") ?? "");
  if (!match?.[1]) {
    await drainBody(c.req.raw);
    return refusal(
      refused(
        "Send an agent token as Authorization: Bearer TOKEN (the owner creates one in the IDE: Agents). Cookies are not accepted here.",
      ),
    );
  }
  if (agentTokenWorkspace(match[1]) !== id) {
    await drainBody(c.req.raw);
    return refusal(refused("This agent token is not valid for this workspace."));
  }
  const declared = Number(c.req.header("Content-Length") ?? "0");
  if (declared > MCP_MAX_BODY_BYTES) {
    await drainBody(c.req.raw);
    throw tooLarge(MCP_MAX_BODY_BYTES);
  }
  const forwarded = enter(c.req.raw, { kind: "agent" });
  // Nothing of a browser session travels to the workspace with an agent's request.
  forwarded.headers.delete("Cookie");
  return c.env.Workspace.getByName(id).fetch(forwarded);
});
