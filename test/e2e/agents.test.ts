/**
 * The Agents panel, as a person uses it: create a token, copy the client
 * configuration shown once, watch an agent's calls arrive in the activity
 * list, revoke the token.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser";
import { createWorkspace, openWorkspace } from "../support/session";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function agent(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "e2e-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe("the Agents panel", () => {
  it("creates a token shown once with its client config, lists the agent's calls live, and revokes it", async () => {
    const id = await createWorkspace("agents panel", "empty");
    const { page, errors } = await openWorkspace(browser, id);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    page.on("dialog", (dialog) => void dialog.accept());
    // After the container's start: Chromium fails requests in flight while Docker adds its network
    // interfaces, and a token's creation is not repeated on its own (see app/api/http.ts).
    await page.locator('[data-testid="container-state"][data-state="running"]').waitFor({ timeout: 120_000 });

    // The Agents panel is a secondary action: in the workspace menu, as backups are (the header fits a phone).
    await page.getByTestId("workspace-menu").click();
    await page.getByTestId("agents-open").click();
    const panel = page.getByTestId("agents-panel");
    await panel.getByText("No agent tokens").waitFor();
    await panel.getByTestId("agent-token-name").fill("laptop agent");
    await panel.getByTestId("agent-token-scope").selectOption("write");
    await panel.getByTestId("agent-token-create").click();

    const created = panel.getByTestId("agent-token-created");
    await created.waitFor();
    const token = (await created.getByTestId("snippet-token").textContent()) ?? "";
    expect(token).toMatch(new RegExp(`^cide_${id}_[0-9a-f]{64}$`));
    const mcpUrl = new URL(`/mcp/workspaces/${id}`, page.url()).toString();
    const claude = await created.getByTestId("snippet-claude").textContent();
    expect(claude).toBe(
      `claude mcp add --transport http cloud-ide-laptop-agent ${mcpUrl} --header "Authorization: Bearer ${token}"`,
    );
    expect(JSON.parse((await created.getByTestId("snippet-cursor").textContent()) ?? "")).toEqual({
      mcpServers: { "cloud-ide-laptop-agent": { url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } },
    });
    await created.getByTestId("copy-claude").click();
    await created.getByText("Copied").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(claude);

    // Once dismissed, the secret is nowhere on the page.
    await created.getByTestId("agent-token-done").click();
    await created.waitFor({ state: "detached" });
    expect(await page.content()).not.toContain(token);
    const row = panel.locator('[data-testid="agent-token-row"][data-name="laptop agent"]');
    expect(await row.getByTestId("agent-token-last-used").textContent()).toBe("never");

    // An agent works; its calls show up in the open panel without a reload.
    const client = await agent(mcpUrl, token);
    await client.callTool({ name: "run_command", arguments: { command: "echo from-agent > agent.txt" } });
    await client.callTool({ name: "read_file", arguments: { path: "agent.txt" } });
    const runRow = panel.locator('[data-testid="agent-activity-row"][data-tool="run_command"]');
    await runRow.waitFor();
    expect(await runRow.textContent()).toContain("echo from-agent > agent.txt");
    expect(await runRow.getAttribute("data-outcome")).toBe("ok");
    await panel.locator('[data-testid="agent-activity-row"][data-tool="read_file"]').waitFor();
    await expect.poll(() => row.getByTestId("agent-token-last-used").textContent()).toBe("just now");

    await row.getByTestId("agent-token-revoke").click();
    await row.waitFor({ state: "detached" });
    await expect(client.callTool({ name: "read_file", arguments: { path: "agent.txt" } })).rejects.toThrow(
      /AGENT_TOKEN_REFUSED/,
    );
    await client.close();
    expect(errors).toEqual([]);
  });
});
