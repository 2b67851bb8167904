/** The official MCP client against a workspace's endpoint, as Claude Code or Cursor would connect it. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import type { CreatedAgentToken } from "../../protocol/agents";
import { ownerApi } from "./session";

/** An agent token for `workspace`, made by its owner. */
export async function createToken(
  workspace: string,
  scope: "read" | "write",
  name = `agent-${scope}`,
  ttlSeconds = 3600,
): Promise<CreatedAgentToken> {
  const response = await ownerApi(`/api/workspaces/${workspace}/agent-tokens`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name, scope, ttlSeconds }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as CreatedAgentToken;
}

/** A client connected to `url` with the token over Streamable HTTP. The caller closes it. */
export async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A tool's text blocks joined, and whether it failed. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[]).map((b) => b.text).join("\n");
  return { text, isError: result.isError === true };
}
