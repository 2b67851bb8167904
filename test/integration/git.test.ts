import { describe, expect, it } from "vitest";
import type { GitBranches, GitDiff, GitLog, GitStatus, GitSyncEvent } from "../../protocol/git";
import { api } from "../support/api";
import { filesUrl, putFile, shell, workspaceContainer } from "../support/files";
import { createWorkspace, ownerApi } from "../support/session";
import { accessUser } from "../support/users";

// Each test makes its own workspace (deleted after it by test/support/cleanup.ts);
// the remotes are bare repositories in its own container (never an outside host).

let id: string;
let container: string;

/** The template committed as "Initial" on main, by a shell in the container (as a terminal would). */
const COMMITTED =
  "git init -q -b main && git config user.email dev@example.com && git config user.name Dev && git add -A && git commit -qm Initial";

/** A new workspace for this test: the template, with `setup` run in /workspace first. */
async function useNewWorkspace(setup?: string): Promise<void> {
  id = await createWorkspace("git test");
  container = await workspaceContainer(id);
  if (setup) shell(container, `cd /workspace && ${setup}`);
}

const git = (suffix: string, init?: RequestInit) => ownerApi(`/api/workspaces/${id}/git${suffix}`, init);
const post = (suffix: string, body: unknown) =>
  git(suffix, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
const status = async () => {
  const response = await git("/status");
  expect(response.status).toBe(200);
  return (await response.json()) as GitStatus & { repository: true };
};
const read = async (path: string) => (await ownerApi(filesUrl(id, "/content", { path }))).text();
const paths = (list: { path: string }[]) => list.map((c) => c.path).sort();
const errorOf = async (response: Response) => (await response.json()) as { code: string; message: string };

/** Reads a streamed pull, push or fetch to its end. */
async function sync(kind: "pull" | "push" | "fetch", body: unknown = {}): Promise<GitSyncEvent[]> {
  const response = await post(`/${kind}`, body);
  expect(response.status, await response.clone().text()).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/x-ndjson");
  const text = await response.text();
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as GitSyncEvent);
}

describe("the source control API", () => {
  it("says a new workspace is not a repository, then initializes it and commits", async () => {
    await useNewWorkspace();
    expect(await (await git("/status")).json()).toEqual({ repository: false });
    const refused = await post("/stage", { paths: ["src"] });
    expect(refused.status).toBe(409);
    expect((await errorOf(refused)).code).toBe("NOT_A_REPOSITORY");

    const init = await post("/init", {});
    expect(init.status).toBe(200);
    const fresh = (await init.json()) as GitStatus & { repository: true };
    expect(fresh.branch).toMatchObject({ head: "main", oid: null });
    // The template's files, node_modules left out by its .gitignore.
    expect(paths(fresh.untracked)).toContain("src/App.tsx");
    expect(fresh.untracked.some((c) => c.path.startsWith("node_modules/"))).toBe(false);
    // The owner's identity, set because none was.
    expect(shell(container, "git config --global user.email")).toBe("owner@cloud-ide.invalid");

    expect((await post("/stage", { paths: ["."] })).status).toBe(200);
    const commit = await post("/commit", { message: "First commit" });
    expect(commit.status).toBe(201);
    expect(await commit.json()).toMatchObject({ summary: "First commit" });
    const clean = await status();
    expect([clean.staged, clean.changed, clean.untracked].flat()).toEqual([]);
    const log = (await (await git("/log?limit=5")).json()) as GitLog;
    expect(log.commits.map((c) => c.subject)).toEqual(["First commit"]);
    expect(log.commits[0]).toMatchObject({ author: "owner", email: "owner@cloud-ide.invalid" });
  });

  it("diffs, stages, unstages and discards a change", async () => {
    await useNewWorkspace(COMMITTED);
    const before = await read("index.html");
    expect((await putFile(id, "index.html", `${before}<!-- edited -->\n`)).status).toBe(200);
    expect((await putFile(id, "new file.txt", "brand new\n")).status).toBe(200);
    let now = await status();
    expect(paths(now.changed)).toEqual(["index.html"]);
    expect(now.changed[0]?.code).toBe("M");
    expect(paths(now.untracked)).toEqual(["new file.txt"]);

    const diff = (await (await git("/diff?path=index.html&staged=0")).json()) as GitDiff;
    expect(diff.original).toMatchObject({ label: "index", text: before });
    expect(diff.modified.text).toContain("<!-- edited -->");
    const added = (await (await git(`/diff?path=${encodeURIComponent("new file.txt")}`)).json()) as GitDiff;
    expect(added.original.missing).toBe(true);
    expect(added.modified.text).toBe("brand new\n");

    now = (await (await post("/stage", { paths: ["index.html"] })).json()) as typeof now;
    expect(paths(now.staged)).toEqual(["index.html"]);
    const staged = (await (await git("/diff?path=index.html&staged=1")).json()) as GitDiff;
    expect(staged.original).toMatchObject({ label: "HEAD", text: before });
    expect(staged.modified.label).toBe("index");
    expect(staged.modified.text).toContain("<!-- edited -->");

    now = (await (await post("/unstage", { paths: ["index.html"] })).json()) as typeof now;
    expect(now.staged).toEqual([]);
    expect(paths(now.changed)).toEqual(["index.html"]);

    now = (await (await post("/discard", { paths: ["index.html", "new file.txt"] })).json()) as typeof now;
    expect([now.staged, now.changed, now.untracked].flat()).toEqual([]);
    expect(await read("index.html")).toBe(before);
    expect(shell(container, "test -e '/workspace/new file.txt' && echo there || echo gone")).toBe("gone");
  });

  it("refuses paths outside /workspace, also through a symbolic link", async () => {
    await useNewWorkspace(COMMITTED);
    for (const bad of ["../etc/passwd", "/etc/passwd", "a/../../x", ""]) {
      const response = await post("/stage", { paths: [bad] });
      expect(response.status, bad).toBe(400);
      expect((await errorOf(response)).code).toBe("INVALID_PATH");
    }
    expect((await git("/diff?path=../../etc/passwd")).status).toBe(400);
    expect((await post("/stage", { paths: "src" })).status).toBe(400);
    shell(container, "ln -sfn /etc /workspace/outside");
    try {
      const diff = await git("/diff?path=outside/passwd");
      expect(diff.status).toBe(403);
      expect((await errorOf(diff)).code).toBe("PATH_OUTSIDE_WORKSPACE");
      const stage = await post("/stage", { paths: ["outside/passwd"] });
      expect(stage.status).toBe(409);
      expect((await errorOf(stage)).message).toMatch(/beyond a symbolic link/);
      const discard = await post("/discard", { paths: ["outside/passwd"] });
      expect(discard.status).toBe(409);
      expect(shell(container, "test -s /etc/passwd && echo kept")).toBe("kept");
    } finally {
      shell(container, "rm -f /workspace/outside");
    }
  });

  it("refuses an empty commit message, a commit of nothing, and branch names git rejects", async () => {
    await useNewWorkspace(COMMITTED);
    for (const message of ["", "   \n", undefined]) {
      const response = await post("/commit", { message });
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: "INVALID_COMMIT_MESSAGE" });
    }
    const nothing = await post("/commit", { message: "nothing" });
    expect(nothing.status).toBe(409);
    expect((await errorOf(nothing)).message).toMatch(/nothing to commit/);

    for (const name of ["a..b", "-x", "with space", "x.lock"]) {
      const response = await post("/branches", { name });
      expect(response.status, name).toBe(400);
      expect((await errorOf(response)).code).toBe("INVALID_BRANCH_NAME");
    }
    // Past the quick check, git's own: a component may not start with a dot.
    const gits = await post("/branches", { name: "feature/.hidden" });
    expect(gits.status).toBe(400);
    expect((await errorOf(gits)).message).toMatch(/not a valid branch name/);
    expect((await git("/log?limit=0")).status).toBe(400);
    expect((await git("/log?limit=abc")).status).toBe(400);
  });

  it("creates and switches branches, and shows git's refusal when the tree is dirty", async () => {
    await useNewWorkspace(COMMITTED);
    const made = await post("/branches", { name: "feature" });
    expect(made.status).toBe(201);
    const { branches } = (await made.json()) as GitBranches;
    expect(branches.find((b) => b.current)?.name).toBe("feature");
    expect((await putFile(id, "index.html", "on feature\n")).status).toBe(200);
    expect((await post("/stage", { paths: ["index.html"] })).status).toBe(200);
    expect((await post("/commit", { message: "On feature" })).status).toBe(201);

    expect((await putFile(id, "index.html", "uncommitted\n")).status).toBe(200);
    const refused = await post("/checkout", { branch: "main" });
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toMatchObject({
      code: "GIT_REFUSED",
      message: expect.stringMatching(/would be overwritten by checkout[\s\S]*index\.html/),
    });
    // Nothing lost, still on feature.
    expect(shell(container, "cat /workspace/index.html")).toBe("uncommitted");
    expect((await status()).branch.head).toBe("feature");

    expect((await post("/discard", { paths: ["index.html"] })).status).toBe(200);
    const switched = await post("/checkout", { branch: "main" });
    expect(switched.status).toBe(200);
    expect(((await switched.json()) as GitStatus & { repository: true }).branch.head).toBe("main");
    expect(shell(container, "cat /workspace/index.html")).not.toContain("on feature");
    expect((await post("/checkout", { branch: "no-such-branch" })).status).toBe(409);
  });

  it("pushes to a remote and pulls from it with streamed progress; a rejected push shows git's message and loses nothing", async () => {
    await useNewWorkspace(COMMITTED);
    shell(container, "rm -rf /tmp/remote.git /tmp/other && git init -q --bare --initial-branch=main /tmp/remote.git");
    const noRemote = await post("/push", {});
    expect(noRemote.status).toBe(409);
    expect((await errorOf(noRemote)).message).toMatch(/git remote add origin/);
    shell(container, "cd /workspace && git remote add origin /tmp/remote.git");

    const pushed = await sync("push");
    expect(pushed.at(-1)).toEqual({ type: "done" });
    expect(pushed.some((e) => e.type === "progress" && /Writing objects/.test(e.text))).toBe(true);
    expect((await status()).branch).toMatchObject({ head: "main", upstream: "origin/main", ahead: 0, behind: 0 });

    // Someone else pushes a commit.
    shell(
      container,
      "git clone -q /tmp/remote.git /tmp/other && cd /tmp/other && git config user.email o@example.com && git config user.name other && echo theirs > theirs.txt && git add theirs.txt && git commit -qm Theirs && git push -q",
    );
    const fetched = await sync("fetch");
    expect(fetched.at(-1)).toEqual({ type: "done" });
    expect((await status()).branch).toMatchObject({ ahead: 0, behind: 1 });

    // A local commit, then a push the remote rejects: git's words, and the commit is still here.
    expect((await putFile(id, "mine.txt", "mine\n")).status).toBe(200);
    expect((await post("/stage", { paths: ["mine.txt"] })).status).toBe(200);
    expect((await post("/commit", { message: "Mine" })).status).toBe(201);
    const rejected = await sync("push");
    const last = rejected.at(-1);
    expect(last?.type).toBe("error");
    expect(last?.type === "error" && last.message).toMatch(/\[rejected\][\s\S]*failed to push some refs/);
    const log = (await (await git("/log?limit=3")).json()) as GitLog;
    expect(log.commits[0]?.subject).toBe("Mine");
    expect(shell(container, "cat /workspace/mine.txt")).toBe("mine");

    shell(container, "cd /workspace && git config pull.rebase true");
    const pulled = await sync("pull");
    expect(pulled.at(-1)).toEqual({ type: "done" });
    expect(shell(container, "cat /workspace/theirs.txt")).toBe("theirs");
    const after = (await (await git("/log?limit=3")).json()) as GitLog;
    expect(after.commits.map((c) => c.subject).slice(0, 2)).toEqual(["Mine", "Theirs"]);
    expect((await sync("push")).at(-1)).toEqual({ type: "done" });
    expect(shell(container, "git -C /tmp/remote.git log -1 --format=%s")).toBe("Mine");
    expect((await post("/push", { remote: "-oops" })).status).toBe(400);
  });

  it("answers 404 for another user's workspace, on every route", async () => {
    await useNewWorkspace(COMMITTED);
    const mallory = await accessUser("mallory@example.com");
    const routes: [string, string][] = [
      ["GET", "/status"],
      ["GET", "/diff?path=index.html"],
      ["GET", "/branches"],
      ["GET", "/log"],
      ["POST", "/init"],
      ["POST", "/stage"],
      ["POST", "/unstage"],
      ["POST", "/discard"],
      ["POST", "/commit"],
      ["POST", "/branches"],
      ["POST", "/checkout"],
      ["POST", "/pull"],
      ["POST", "/push"],
      ["POST", "/fetch"],
    ];
    for (const [method, path] of routes) {
      const response = await api(`/api/workspaces/${id}/git${path}`, {
        method,
        headers: { ...mallory, "Content-Type": "application/json" },
        ...(method === "POST" ? { body: JSON.stringify({ paths: ["index.html"], message: "x", name: "x" }) } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    // Nothing of theirs reached the repository.
    expect((await status()).staged).toEqual([]);
    expect((await api(`/api/workspaces/${id}/git/status`)).status).toBe(401);
  });
});

describe("a sleeping workspace", () => {
  it("answers its git reads 409 WORKSPACE_ASLEEP and starts nothing; a change wakes it", async () => {
    await useNewWorkspace(COMMITTED);
    expect((await ownerApi(`/api/workspaces/${id}/stop`, { method: "POST" })).status).toBe(200);
    for (const path of ["/status", "/diff?path=index.html", "/branches", "/log"]) {
      const response = await git(path);
      expect(response.status, path).toBe(409);
      expect((await errorOf(response)).code).toBe("WORKSPACE_ASLEEP");
    }
    const state = (await (await ownerApi(`/api/workspaces/${id}/status`)).json()) as { state: string };
    expect(state.state).toBe("sleeping");
    // A change (a POST) wakes it, and the repository came back with the snapshot.
    const staged = await post("/stage", { paths: ["index.html"] });
    expect(staged.status).toBe(200);
    expect(((await staged.json()) as GitStatus & { repository: true }).branch.head).toBe("main");
  });
});

describe("a workspace from a repository", () => {
  it("refuses URLs git could misuse and names git rejects", async () => {
    const create = (repository: unknown) =>
      ownerApi("/api/workspaces", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: "from git", repository }),
      });
    for (const url of ["ext::sh -c touch% /tmp/pwned", "--upload-pack=touch /tmp/x", "/etc", "file:///etc", ""]) {
      const response = await create({ url });
      expect(response.status, url).toBe(400);
      expect((await errorOf(response)).code).toBe("INVALID_GIT_URL");
    }
    const branch = await create({ url: "https://example.com/a.git", branch: "bad..name" });
    expect(branch.status).toBe(400);
    expect((await errorOf(branch)).code).toBe("INVALID_BRANCH_NAME");
  });
});
