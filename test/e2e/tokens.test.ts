/**
 * The Tokens page and the device login (issue 46), as a person uses them:
 * make a token (shown once) and use it, register an SSH key (a weak one is
 * refused with the reason), revoke the token; approve `cloud-ide login` on
 * the /device page and see the command line signed in.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../support/api";
import { launchBrowser, openPage } from "../support/browser";
import { CLI } from "../support/ssh-client";

let browser: Browser;
const home = mkdtempSync(join(tmpdir(), "cloud-ide-e2e-tokens-"));

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  rmSync(home, { recursive: true, force: true });
});

async function signedIn(path: string): Promise<Page> {
  const { page } = await openPage(browser, path);
  await page.getByTestId("sign-in").waitFor();
  await page.getByLabel("Password").fill(inject("password"));
  await page.getByRole("button", { name: "Sign in" }).click();
  return page;
}

function keygen(type: string, bits?: string): Promise<string> {
  const file = join(home, `key-${type}-${bits ?? ""}`);
  return new Promise((resolve, reject) => {
    const args = ["-q", "-t", type, ...(bits ? ["-b", bits] : []), "-N", "", "-C", "me@laptop", "-f", file];
    spawn("ssh-keygen", args, { stdio: "ignore" }).on("exit", (code) =>
      code === 0 ? resolve(readFileSync(`${file}.pub`, "utf8").trim()) : reject(new Error(`ssh-keygen ${code}`)),
    );
  });
}

describe("the Tokens page", () => {
  it("makes a token shown once, registers an SSH key, refuses a weak one, and revokes the token", async () => {
    const page = await signedIn("/tokens");
    await page.getByTestId("tokens-page").waitFor();

    await page.getByLabel("Name").first().fill("laptop");
    await page.getByRole("button", { name: "Create token" }).click();
    const secret = await page.getByLabel("New token").inputValue();
    expect(secret).toMatch(/^cide_/);
    const row = page.getByTestId("token").filter({ has: page.getByText("laptop", { exact: true }) });
    await row.waitFor();
    // The token lists workspaces from a command line.
    const listed = await api("/api/workspaces", { headers: { Authorization: `Bearer ${secret}` } });
    expect(listed.status).toBe(200);
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.getByLabel("New token").count()).toBe(0);

    const weak = await keygen("rsa", "2048");
    const keyForm = page.locator("form").nth(1);
    await keyForm.getByLabel("Name").fill("old rsa");
    await keyForm.getByLabel("Public key").fill(weak);
    await page.getByRole("button", { name: "Add key" }).click();
    await page
      .getByRole("alert")
      .getByText(/2048 bits; 3072 or more/)
      .waitFor();

    const good = await keygen("ed25519");
    await keyForm.getByLabel("Name").fill("laptop key");
    await keyForm.getByLabel("Public key").fill(good);
    await page.getByRole("button", { name: "Add key" }).click();
    const keyRow = page.getByTestId("ssh-key").filter({ has: page.getByText("laptop key", { exact: true }) });
    await keyRow.getByText(/SHA256:/).waitFor();

    await page.getByRole("button", { name: "Revoke laptop", exact: true }).click();
    await row.waitFor({ state: "detached" });
    const after = await api("/api/workspaces", { headers: { Authorization: `Bearer ${secret}` } });
    expect(after.status).toBe(401);

    await page.getByRole("button", { name: "Remove laptop key", exact: true }).click();
    await keyRow.waitFor({ state: "detached" });
    await page.context().close();
  });
});

describe("cloud-ide login", () => {
  it("signs a command line in once the person approves its code on /device", async () => {
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const login = spawn(process.execPath, [CLI, "login", inject("baseUrl")], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let said = "";
    const exited = new Promise<number>((resolve) => login.on("exit", (code) => resolve(code ?? 1)));
    const url = await new Promise<string>((resolve, reject) => {
      login.stderr.on("data", (chunk) => {
        said += chunk;
        const match = /Open (\S+)/.exec(said);
        if (match?.[1]) resolve(match[1]);
      });
      void exited.then(() => reject(new Error(`login ended early: ${said}`)));
    });
    const code = new URL(url).searchParams.get("code") ?? "";
    expect(said).toContain(`approve the code ${code}`);

    const page = await signedIn(new URL(url).pathname + new URL(url).search);
    await page.getByTestId("device-page").waitFor();
    expect(await page.getByLabel("Code").inputValue()).toBe(code);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByTestId("device-approved").waitFor();
    expect(await exited, said).toBe(0);

    const saved = JSON.parse(readFileSync(join(home, ".config/cloud-ide/config.json"), "utf8"));
    expect(saved.url).toBe(new URL(inject("baseUrl")).origin);
    const listed = await api("/api/workspaces", { headers: { Authorization: `Bearer ${saved.token}` } });
    expect(listed.status).toBe(200);
    // The code is used: approving it again is refused.
    await page.reload();
    await page.getByRole("button", { name: "Approve" }).click();
    await page
      .getByRole("alert")
      .getByText(/No login waits with this code/)
      .waitFor();
    await page.context().close();
  });
});
