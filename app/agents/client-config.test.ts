import { describe, expect, it } from "vitest";
import { claudeCodeCommand, cursorConfig, serverName } from "./client-config";

describe("MCP client configuration", () => {
  const url = "https://ide.example.com/mcp/workspaces/abc";
  const token = `cide_abc_${"f".repeat(64)}`;

  it("names the server after the token", () => {
    expect(serverName("Claude Code #1")).toBe("cloud-ide-claude-code-1");
    expect(serverName("--")).toBe("cloud-ide");
  });

  it("gives Claude Code one command with the bearer header", () => {
    expect(claudeCodeCommand("laptop", url, token)).toBe(
      `claude mcp add --transport http cloud-ide-laptop ${url} --header "Authorization: Bearer ${token}"`,
    );
  });

  it("gives Cursor an mcp.json", () => {
    expect(JSON.parse(cursorConfig("laptop", url, token))).toEqual({
      mcpServers: { "cloud-ide-laptop": { url, headers: { Authorization: `Bearer ${token}` } } },
    });
  });
});
