/**
 * How to give an MCP client a workspace's endpoint and token: the lines a
 * person pastes, for Claude Code and for Cursor.
 */

/** A client's server name: letters, digits and `-` (the token's name, tidied). */
export function serverName(tokenName: string): string {
  const name = tokenName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return name ? `cloud-ide-${name}` : "cloud-ide";
}

/** `claude mcp add` for Claude Code's HTTP transport. */
export function claudeCodeCommand(tokenName: string, mcpUrl: string, token: string): string {
  return `claude mcp add --transport http ${serverName(tokenName)} ${mcpUrl} --header "Authorization: Bearer ${token}"`;
}

/** `.cursor/mcp.json` with the endpoint and its header. */
export function cursorConfig(tokenName: string, mcpUrl: string, token: string): string {
  const config = {
    mcpServers: { [serverName(tokenName)]: { url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } },
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
