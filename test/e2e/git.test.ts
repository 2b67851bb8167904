import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import type { WorkspaceSummary } from "../../protocol/workspaces";
import { FAKE_GITHUB_USER_CODE, TEST_REPOSITORY_SUBJECT, TEST_TOKEN } from "../../worker/testing/test-git-hosts";
import { launchBrowser, networkChanges, openPage } from "../support/browser";
import { shell, workspaceContainer } from "../support/files";
import { createWorkspace, openWorkspace, ownerApi } from "../support/session";
import { connected, typeLine, waitForScreen } from "../support/terminal-page";

// The remotes are bare repositories in the workspace's own container; other
// people's work on them is made with `docker exec` (never an outside host).

/** expect.poll, patient: two shared cores run the IDE, its containers and the browser. */
const poll = <T>(read: () => T | Promise<T>, options: { timeout?: number; interval?: number } = {}) =>
  expect.poll(read, { timeout: 30_000, interval: 100, ...options });

let browser: Browser;
let page: Page;
let errors: string[];
let container: string;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await page?.context().close();
});

/** A workspace whose /workspace runs `setup` first (through the same shell a terminal has), opened on the git panel. */
async function openOnGitPanel(setup?: string): Promise<string> {
  const id = await createWorkspace("git e2e");
  container = await workspaceContainer(id);
  if (setup) shell(container, `cd /workspace && ${setup}`);
  ({ page, errors } = await openWorkspace(browser, id));
  page.on("dialog", (dialog) => void dialog.accept());
  await page.getByTestId("sidebar-git").click();
  await page.getByTestId("git-panel").waitFor();
  return id;
}

const COMMIT_ALL =
  "git init -q -b main && git config user.email dev@example.com && git config user.name Dev && git add -A && git commit -qm Initial";

const file = (path: string, group?: string) =>
  page.locator(`[data-testid="git-file"][data-path="${path}"]${group ? `[data-group="${group}"]` : ""}`);
const treeRow = (path: string) => page.locator(`[data-testid="file-tree"] [data-path="${path}"]`);
const logSubjects = () => page.locator('[data-testid="git-log-entry"] .git-log-subject').allTextContents();
/**
 * Clicks Pull, Push or Fetch and answers how it ended, with git's message
 * when it failed. Chromium fails a request in flight when the host's network
 * interfaces change (Docker adds one per container): such an attempt proves
 * nothing either way, so it is made again, as a person would.
 */
async function sync(kind: "pull" | "push" | "fetch"): Promise<{ state: string | null; error: string | null }> {
  for (let attempt = 1; ; attempt++) {
    const changed = networkChanges(page);
    await page.getByTestId(`git-${kind}`).click();
    const panel = page.getByTestId("git-sync");
    await poll(() => panel.getAttribute("data-state")).not.toBe("running");
    const error = page.getByTestId("git-sync-error");
    const outcome = {
      state: await panel.getAttribute("data-state"),
      error: (await error.count()) ? await error.textContent() : null,
    };
    const network = /cannot be reached|connection dropped/.test(outcome.error ?? "");
    if (attempt < 3 && changed() && network) continue;
    return outcome;
  }
}
const editorText = () => page.locator('[data-testid="code-editor"] .cm-content').textContent();

describe("source control", () => {
  it("initializes a repository, shows an edit in the panel, the tree and a diff, and commits it", async () => {
    await openOnGitPanel();
    await page.getByTestId("git-not-repository").waitFor();
    await page.getByTestId("git-init").click();
    await page.getByTestId("git-group-untracked").waitFor();
    // Everything the template has, committed first.
    await page.getByTestId("git-group-untracked").getByTestId("git-stage-all").click();
    await page.getByTestId("git-group-staged").waitFor();
    await page.getByTestId("git-message").fill("Initial");
    await page.getByTestId("git-commit").click();
    await page.getByText("No changes.").waitFor();
    await poll(logSubjects).toEqual(["Initial"]);

    // An edit in the editor: changed in the panel and marked in the tree.
    await page.getByTestId("sidebar-files").click();
    await treeRow("index.html").click();
    await poll(editorText).toContain("<html");
    await page.locator('[data-testid="code-editor"] .cm-content').click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("<!-- edited in the IDE -->");
    await page.keyboard.press("Control+s");
    await poll(() => treeRow("index.html").getByTestId("tree-git-mark").textContent()).toBe("M");
    await page.getByTestId("sidebar-git").click();
    await file("index.html", "changed").waitFor();
    expect(await file("index.html", "changed").getByTestId("git-code").textContent()).toBe("M");

    // Its diff: the index on one side, the working tree with the edit on the other.
    await file("index.html", "changed").locator(".git-file-open").click();
    await page.getByTestId("git-merge-view").waitFor();
    await poll(() => page.getByTestId("git-diff").textContent()).toContain("index ↔ working tree");
    await poll(() => page.getByTestId("git-merge-view").textContent()).toContain("<!-- edited in the IDE -->");
    await page.screenshot({ path: join(process.cwd(), "test-results", "screenshots", "source-control-diff.png") });
    await page.getByTestId("git-diff-close").click();

    // Stage, commit with Ctrl+Enter: the list empties and the log shows it.
    await file("index.html", "changed").getByTestId("git-stage").click();
    await file("index.html", "staged").waitFor();
    await page.getByTestId("git-message").fill("Edit the page");
    await page.getByTestId("git-message").press("Control+Enter");
    await page.getByText("No changes.").waitFor();
    await poll(logSubjects).toEqual(["Edit the page", "Initial"]);
    await poll(() => treeRow("index.html").getByTestId("tree-git-mark").count()).toBe(0);
    expect(shell(container, "git -C /workspace log -1 --format=%s")).toBe("Edit the page");
    expect(errors).toEqual([]);
  });

  it("shows a commit made in the terminal", async () => {
    await openOnGitPanel(COMMIT_ALL);
    await poll(logSubjects).toEqual(["Initial"]);
    await connected(page);
    await typeLine(page, "echo more >> index.html && git commit -qam 'From the terminal' && echo committed-$((6*7))");
    await waitForScreen(page, /committed-42/);
    // The watcher sees .git change; the panel reads the log again (bench/git.bench.mjs measures how fast).
    await poll(logSubjects, { timeout: 10_000, interval: 50 }).toEqual(["From the terminal", "Initial"]);
    // The status is its own request: it can land after the log.
    await poll(() => page.getByText("No changes.").count()).toBe(1);
  });

  it("switches branches, updating open files, and shows git's refusal when the tree is dirty", async () => {
    await openOnGitPanel(
      `echo 'on main' > notes.txt && ${COMMIT_ALL} && git switch -qc feature && echo 'on feature' > notes.txt && echo theirs > extra.txt && git add notes.txt extra.txt && git commit -qm Feature && git switch -q main && echo mine > extra.txt`,
    );
    // notes.txt differs between the branches; open it in the editor.
    await page.getByTestId("sidebar-files").click();
    await treeRow("notes.txt").click();
    await poll(editorText).toBe("on main");
    // extra.txt is untracked here and tracked on feature: git refuses to switch.
    await page.getByTestId("sidebar-git").click();
    await page.getByTestId("git-branch").selectOption("feature");
    await poll(() => page.getByTestId("git-error").textContent()).toMatch(/would be overwritten by checkout/);
    await poll(() => page.getByTestId("git-branch").inputValue()).toBe("main");
    expect(shell(container, "cat /workspace/extra.txt")).toBe("mine");

    shell(container, "rm /workspace/extra.txt");
    await page.getByTestId("git-branch").selectOption("feature");
    await poll(() => page.getByTestId("git-branch").inputValue()).toBe("feature");
    await poll(editorText).toBe("on feature");
    await poll(logSubjects).toEqual(["Feature", "Initial"]);

    // A new branch from the panel.
    await page.getByTestId("git-new-branch").click();
    await page.getByTestId("git-new-branch-name").fill("bad..name");
    await page.getByTestId("git-new-branch-name").press("Enter");
    await poll(() => page.getByTestId("git-error").textContent()).toMatch(/not a valid branch name/);
    await page.getByTestId("git-new-branch-name").fill("topic");
    await page.getByTestId("git-new-branch-name").press("Enter");
    await poll(() => page.getByTestId("git-branch").inputValue()).toBe("topic");
  });

  it("pushes and pulls with progress, and shows a rejected push's message", async () => {
    await openOnGitPanel(
      `git init -q --bare -b main /tmp/remote.git && ${COMMIT_ALL} && git remote add origin /tmp/remote.git`,
    );
    expect(await sync("push")).toEqual({ state: "done", error: null });
    expect(await page.getByTestId("git-sync-progress").textContent()).toMatch(/objects/i);
    await poll(() => page.getByTestId("git-ahead-behind").textContent()).toBe("↑0 ↓0");
    expect(shell(container, "git -C /tmp/remote.git log -1 --format=%s")).toBe("Initial");

    // Someone else pushes; our own commit is then rejected, and nothing is lost.
    shell(
      container,
      "git clone -q /tmp/remote.git /tmp/other && cd /tmp/other && git -c user.email=o@example.com -c user.name=Other commit -q --allow-empty -m Theirs && git push -q",
    );
    shell(container, "cd /workspace && echo mine > mine.txt && git add mine.txt && git commit -qm Mine");
    await poll(logSubjects).toEqual(["Mine", "Initial"]);
    expect((await sync("push")).state).toBe("failed");
    expect(await page.getByTestId("git-sync-error").textContent()).toMatch(
      /\[rejected\][\s\S]*failed to push some refs/,
    );
    // The panel's error is set after the push's closing status re-read: later than data-state="failed".
    await poll(() => page.getByTestId("git-error").textContent()).toMatch(/rejected/);
    expect(shell(container, "cat /workspace/mine.txt")).toBe("mine");

    shell(container, "git -C /workspace config pull.rebase true");
    expect(await sync("pull")).toEqual({ state: "done", error: null });
    await poll(logSubjects).toEqual(["Mine", "Theirs", "Initial"]);
    await poll(() => page.getByTestId("git-ahead-behind").textContent()).toBe("↑1 ↓0");
  });

  it("stays responsive with 10,000 changed files", async () => {
    await openOnGitPanel(
      `mkdir -p many && (cd many && seq 10000 | xargs touch) && ${COMMIT_ALL} && (cd many && seq 10000 | xargs -n 500 sh -c 'for f; do echo x > "$f"; done' sh)`,
    );
    await poll(() => page.getByTestId("git-badge").textContent()).toBe("10000");
    await file("many/1", "changed").waitFor();
    // Virtualized: a screenful of rows in the page, not 10,000.
    expect(await page.getByTestId("git-file").count()).toBeLessThan(200);
    // Still usable: scroll to the end, open a diff, stage all.
    await page.getByTestId("git-changes").evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await file("many/9999", "changed").locator(".git-file-open").click();
    await poll(() => page.getByTestId("git-merge-view").textContent()).toContain("x");
    await page.getByTestId("git-changes").evaluate((el) => el.scrollTo(0, 0));
    await page.getByTestId("git-group-changed").getByTestId("git-stage-all").click();
    await page.getByTestId("git-group-staged").waitFor({ timeout: 60_000 });
    await poll(() => page.getByTestId("git-group-staged").textContent()).toContain("10000");
    expect(errors).toEqual([]);
  });
});

describe("HTTPS credentials", () => {
  it("fetches from a private remote with a token pasted in the panel, and signs in to GitHub", async () => {
    const id = await createWorkspace("git e2e token");
    // The test Worker's git host serves /private.git only to requests carrying TEST_TOKEN.
    const policy = await ownerApi(`/api/workspaces/${id}/network`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ mode: "allowlist", allow: ["git.egress.test"] }),
    });
    expect(policy.status).toBe(200);
    container = await workspaceContainer(id);
    shell(container, `cd /workspace && ${COMMIT_ALL} && git remote add origin https://git.egress.test/private.git`);
    ({ page, errors } = await openWorkspace(browser, id));
    await page.getByTestId("sidebar-git").click();
    await page.getByTestId("git-panel").waitFor();
    expect((await sync("fetch")).error).toMatch(/could not read Username|Authentication failed/);

    await page.getByRole("button", { name: /HTTPS credentials/ }).click();
    await page.getByTestId("git-credential-host").fill("git.egress.test");
    await page.getByTestId("git-credential-token").fill(TEST_TOKEN);
    await page.getByTestId("git-credential-save").click();
    await page.locator('[data-testid="git-credential"][data-host="git.egress.test"]').waitFor();
    // The box empties in a render after the one that shows the host's row.
    await poll(() => page.getByTestId("git-credential-token").inputValue()).toBe("");
    expect(await sync("fetch")).toEqual({ state: "done", error: null });
    expect(shell(container, "git -C /workspace log -1 --format=%s origin/main")).toBe(TEST_REPOSITORY_SUBJECT);
    expect(shell(container, `grep -c -- '${TEST_TOKEN}' /workspace/.git/config; true`)).toBe("0");

    // GitHub's device sign-in (the test Worker stands in for GitHub): a code to enter, then github.com has a token.
    await page.getByTestId("git-github-sign-in").click();
    await poll(() => page.getByTestId("git-github-code").textContent()).toContain(FAKE_GITHUB_USER_CODE);
    const github = page.locator('[data-testid="git-credential"][data-host="github.com"]');
    await github.waitFor();
    // This workspace's policy lists only git.egress.test: the panel says the token is not used yet.
    expect(await github.textContent()).toContain("not on the network allow list");
    expect(errors).toEqual([]);
  });
});

describe("a workspace from a repository", () => {
  it("clones the repository on its first start, with the progress in a terminal", async () => {
    const created = await ownerApi("/api/workspaces", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "cloned", repository: { url: "http://git.egress.test/repo.git" } }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    // Its network policy lets it reach the test Worker's own git host (which serves that repository).
    const policy = await ownerApi(`/api/workspaces/${id}/network`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ mode: "allowlist", allow: ["git.egress.test"] }),
    });
    expect(policy.status).toBe(200);
    ({ page, errors } = await openWorkspace(browser, id));
    await connected(page);
    await waitForScreen(page, /git clone --progress -- 'http:\/\/git\.egress\.test\/repo\.git' \./);
    await waitForScreen(page, /Cloning into '\.'/);
    await treeRow("README.md").waitFor({ timeout: 60_000 });
    await page.getByTestId("sidebar-git").click();
    await poll(logSubjects).toEqual(["Served by the test handler"]);
    // The panel's status can arrive after the clone's last change event: both waited for, not read once.
    await expect.poll(() => page.getByTestId("git-branch").inputValue(), { timeout: 30_000 }).toBe("main");
    await expect.poll(() => page.getByText("No changes.").count(), { timeout: 30_000 }).toBe(1);
  });

  it("takes a Git URL and a branch in New workspace, and the clone runs in the terminal", async () => {
    ({ page, errors } = await openPage(browser, "/"));
    await page.getByTestId("sign-in").waitFor();
    await page.getByLabel("Password").fill(inject("password"));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("workspace-list").waitFor();
    await page.getByLabel("New workspace").fill("from a url");
    await page.getByLabel("Start from").selectOption("git");
    // Refused before anything is made: git could read this as a command.
    await page.getByTestId("new-workspace-git-url").fill("ext::sh%20-c%20touch%20/tmp/pwned");
    const fromUrl = async () =>
      ((await (await ownerApi("/api/workspaces")).json()) as WorkspaceSummary[])
        .filter((w) => w.name === "from a url")
        .map((w) => w.id);
    const before = await fromUrl();
    await page.getByRole("button", { name: "Create" }).click();
    await poll(() => page.getByRole("alert").textContent()).toMatch(/ext:: and file paths are refused/);
    expect(await fromUrl()).toEqual(before);
    // Nothing listens on this port of the container's own loopback: git says so, in the terminal.
    await page.getByTestId("new-workspace-git-url").fill("http://127.0.0.1:9/none.git");
    await page.getByTestId("new-workspace-git-branch").fill("dev");
    await page.getByRole("button", { name: "Create" }).click();
    await page.waitForURL(/\/workspaces\/[a-z0-9]{16}$/);
    await connected(page);
    const id = new URL(page.url()).pathname.split("/")[2] as string;
    // One new workspace, the one opened, and its clone ran in the terminal and failed there.
    expect((await fromUrl()).sort()).toEqual([...before, id].sort());
    await waitForScreen(page, /git clone --progress --branch 'dev' -- 'http:\/\/127\.0\.0\.1:9\/none\.git' \./);
    await waitForScreen(page, /Failed to connect to 127\.0\.0\.1 port 9/);
  });
});
