/**
 * The agent panel, as a person uses it, in Chromium: ask, see the command
 * waiting for approval, approve it and see its result; reject another and
 * see it never ran; edit one before approving it; a file the agent writes
 * opens in the editor as a diff to review (a part rejected there is put
 * back and saved); the conversation is still there after a reload; an
 * answer appears as the model writes it, and Stop keeps what it said; the
 * panel fits a phone. The model is the scripted
 * OpenAI-compatible one the tier starts (test/support/scripted-model.ts);
 * the commands run in the workspace's real container.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, reload } from "../support/browser";
import { filesUrl } from "../support/files";
import { createWorkspace, openWorkspace, ownerApi } from "../support/session";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const editorText = (page: Page) => page.locator('[data-testid="code-editor"] .cm-content').textContent();

async function openPanel(page: Page) {
  await page.getByTestId("workspace-menu").click();
  await page.getByTestId("agent-chat-open").click();
  const panel = page.getByTestId("agent-chat");
  await panel.waitFor();
  return panel;
}

async function readFile(id: string, path: string): Promise<string> {
  return (await ownerApi(filesUrl(id, "/content", { path }))).text();
}

async function ask(page: Page, text: string) {
  const panel = page.getByTestId("agent-chat");
  await panel.getByTestId("agent-chat-input").fill(text);
  await panel.getByTestId("agent-chat-send").click();
}

describe("the agent panel", () => {
  it("asks before running a command, runs it on approve, never runs a rejected one, and keeps the conversation", async () => {
    const id = await createWorkspace("agent panel", "empty");
    const { page, errors } = await openWorkspace(browser, id);
    // After the container's start: Chromium fails requests in flight while Docker adds its network
    // interfaces, and a message to the agent is not repeated on its own (see app/api/http.ts).
    await page.locator('[data-testid="container-state"][data-state="running"]').waitFor({ timeout: 120_000 });
    const panel = await openPanel(page);
    // The model the deployer set (here the tier's scripted one), once the conversation has loaded.
    await panel
      .getByTestId("agent-chat-model")
      .getByText(/^scripted-test-model at 127\.0\.0\.1:\d+$/)
      .waitFor();

    // A command: shown, waiting for the person.
    await ask(page, "run: echo from-the-panel > /workspace/approved.txt");
    const first = panel.getByTestId("agent-chat-tool").nth(0);
    await first.and(page.locator('[data-status="pending"]')).waitFor();
    expect(await first.getByTestId("agent-chat-command").textContent()).toBe(
      "$ echo from-the-panel > /workspace/approved.txt",
    );
    expect((await ownerApi(filesUrl(id, "/content", { path: "approved.txt" }))).status).toBe(404);
    await first.getByTestId("agent-chat-approve").click();
    await first.and(page.locator('[data-status="done"]')).waitFor();
    expect(await first.getByTestId("agent-chat-output").textContent()).toContain("Exit code 0.");
    await panel.getByTestId("agent-chat-assistant").getByText("Tool answered:").first().waitFor();
    const approved = await ownerApi(filesUrl(id, "/content", { path: "approved.txt" }));
    expect(await approved.text()).toBe("from-the-panel\n");

    // Another: rejected, never run.
    await ask(page, "run: touch /workspace/rejected.txt");
    const second = panel.getByTestId("agent-chat-tool").nth(1);
    await second.and(page.locator('[data-status="pending"]')).waitFor();
    await second.getByTestId("agent-chat-reject").click();
    await second.and(page.locator('[data-status="rejected"]')).waitFor();
    expect((await ownerApi(filesUrl(id, "/content", { path: "rejected.txt" }))).status).toBe(404);

    // A command the person edits before approving: what runs is the edited one.
    await ask(page, "run: touch /workspace/as-proposed.txt");
    const edited = panel.getByTestId("agent-chat-tool").nth(2);
    await edited.and(page.locator('[data-status="pending"]')).waitFor();
    await edited.getByTestId("agent-chat-edit").click();
    await edited.getByTestId("agent-chat-edit-input").fill("touch /workspace/as-edited.txt");
    await edited.getByTestId("agent-chat-approve-edited").click();
    await edited.and(page.locator('[data-status="done"]')).waitFor();
    expect(await edited.getByTestId("agent-chat-command").textContent()).toBe("$ touch /workspace/as-edited.txt");
    expect((await ownerApi(filesUrl(id, "/content", { path: "as-edited.txt" }))).status).toBe(200);
    expect((await ownerApi(filesUrl(id, "/content", { path: "as-proposed.txt" }))).status).toBe(404);

    // A file the agent writes: the change shown before, the file open in the editor after.
    await ask(page, "write notes.txt: written by the agent");
    const third = panel.getByTestId("agent-chat-tool").nth(3);
    await third.and(page.locator('[data-status="pending"]')).waitFor();
    expect(await third.getByTestId("agent-chat-diff").textContent()).toBe("+ written by the agent");
    await third.getByTestId("agent-chat-approve").click();
    await third.and(page.locator('[data-status="done"]')).waitFor();
    await expect.poll(() => editorText(page), { timeout: 30_000 }).toContain("written by the agent");
    // ...as the agent's change, under review: a bar above it, and Done ends the review.
    const review = page.getByTestId("agent-review");
    await review.waitFor();
    await page.getByTestId("agent-review-done").click();
    await review.waitFor({ state: "detached" });

    // An edit opens as a diff, what it removed above what it wrote; rejecting it puts the old text back.
    await ask(page, "edit notes.txt: written by => changed by");
    const fourth = panel.getByTestId("agent-chat-tool").nth(4);
    await fourth.and(page.locator('[data-status="pending"]')).waitFor();
    await fourth.getByTestId("agent-chat-approve").click();
    await fourth.and(page.locator('[data-status="done"]')).waitFor();
    await review.waitFor();
    const removed = page.locator('[data-testid="code-editor"] .cm-deletedChunk');
    await expect.poll(() => removed.textContent(), { timeout: 30_000 }).toContain("written by");
    expect(await page.locator('[data-testid="code-editor"] .cm-changedLine').textContent()).toBe(
      "changed by the agent",
    );
    expect(await readFile(id, "notes.txt")).toBe("changed by the agent");
    await removed.locator('button[name="reject"]').click();
    await expect.poll(() => editorText(page)).toBe("written by the agent");
    expect(await page.locator('[data-testid="code-editor"] .cm-deletedChunk').count()).toBe(0);
    // The buffer holds the old text now; saving writes it.
    await page.locator('[data-testid="code-editor"] .cm-content').click();
    await page.keyboard.press("Control+s");
    await expect.poll(() => readFile(id, "notes.txt"), { timeout: 30_000 }).toBe("written by the agent");
    await page.getByTestId("agent-review-done").click();
    await review.waitFor({ state: "detached" });
    // The panel opens the change again on request.
    await fourth.getByTestId("agent-chat-show-change").click();
    await review.waitFor();
    await page.getByTestId("agent-review-done").click();

    // After a reload, the conversation is the same.
    await reload(page);
    const again = await openPanel(page);
    await again.getByTestId("agent-chat-tool").nth(3).waitFor();
    expect(
      await again
        .getByTestId("agent-chat-tool")
        .evaluateAll((tools) => tools.map((t) => t.getAttribute("data-status"))),
    ).toEqual(["done", "rejected", "done", "done", "done"]);

    // The agent's text is Markdown: emphasis and code shown as such; an image is named, never fetched.
    await ask(page, "**bold**, `code` and ![secret](http://127.0.0.1:9/leak.png)");
    const answer = again.getByTestId("agent-chat-assistant").last();
    await expect.poll(() => answer.textContent(), { timeout: 30_000 }).toContain("[image: secret]");
    expect(await answer.locator("strong").textContent()).toBe("bold");
    expect(await answer.locator("code").textContent()).toBe("code");
    expect(await answer.locator("img").count()).toBe(0);

    // An answer appears as the model writes it (a number every 100 ms), and Stop keeps what it had said.
    await ask(page, "count slowly to 80");
    const draft = again.getByTestId("agent-chat-draft");
    await expect.poll(() => draft.textContent(), { timeout: 30_000 }).toMatch(/^1 2 3 /);
    await again.getByTestId("agent-chat-stop").click();
    await again.getByText("Stopped.").waitFor();
    await draft.waitFor({ state: "detached" });
    const said = await again.getByTestId("agent-chat-assistant").last().textContent();
    expect(said).toMatch(/^1 2 3( \d+)* ?$/);
    expect(said).not.toContain("80 ");
    await again.getByTestId("agent-chat-send").waitFor();

    // On a phone (390 px wide) the panel fits the screen, its message box and Send included.
    await page.setViewportSize({ width: 390, height: 844 });
    const phone = page.getByTestId("agent-chat");
    await phone.getByTestId("agent-chat-tool").nth(3).waitFor();
    for (const part of [phone, phone.getByTestId("agent-chat-input"), phone.getByTestId("agent-chat-send")]) {
      const box = await part.boundingBox();
      expect(box?.x).toBeGreaterThanOrEqual(0);
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
      expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(844);
    }
    expect(errors).toEqual([]);
  });
});
