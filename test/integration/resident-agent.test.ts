import { execFile } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import type { WorkspaceStatus } from "../../protocol/workspace";
import { filesUrl, putFile, shell, workspaceContainer } from "../support/files";
import { createWorkspace, ownerApi } from "../support/session";

/**
 * The resident file agent (worker/resident/) in a real container: file
 * operations go through it, and an agent killed in the middle of a save
 * leaves the file as it was, and the next request gets a new agent.
 */
let id: string;
let container: string;

beforeAll(async () => {
  id = await createWorkspace("resident agent test");
  container = await workspaceContainer(id);
});

/** The pid of the container's resident agent ("" when none runs). */
const agentPid = () => shell(container, 'pgrep -f "cloud-ide[ ]resident agent" || true').trim();
const status = async () => (await (await ownerApi(`/api/workspaces/${id}/status`)).json()) as WorkspaceStatus;

describe("the resident agent", { timeout: 120_000 }, () => {
  it("answers file operations in one process, and the status says so", async () => {
    const pid = agentPid();
    expect(pid).toMatch(/^\d+$/);
    expect(await status()).toMatchObject({ state: "running", agent: "resident" });
    expect((await putFile(id, "agent/a.txt", "one")).status).toBe(200);
    const read = await ownerApi(filesUrl(id, "/content", { path: "agent/a.txt" }));
    expect(await read.text()).toBe("one");
    // The same process answered both: no process per operation.
    expect(agentPid()).toBe(pid);
  });

  it("speaks over one TCP connection to the container, and keeps no port open once it is made", async () => {
    expect(await status()).toMatchObject({ agent: "resident", agentTransport: "tcp" });
    // The states of the agent's TCP sockets (/proc/net/tcp's st: 01 established, 0A listening).
    const states = shell(
      container,
      `python3 -c '
import os, sys
fds = "/proc/%s/fd" % sys.argv[1]
inodes = {os.readlink(fds + "/" + f)[8:-1] for f in os.listdir(fds) if os.readlink(fds + "/" + f).startswith("socket:")}
print(" ".join(sorted(l.split()[3] for l in open("/proc/net/tcp").read().splitlines()[1:] if l.split()[9] in inodes)))
' ${agentPid()}`,
    ).trim();
    expect(states).toBe("01");
  });

  it("killed in the middle of a save, leaves the file old or new, never torn, and the next request gets a new agent", async () => {
    const size = 48 << 20;
    expect((await putFile(id, "agent/big.txt", "a".repeat(1 << 20))).status).toBe(200);
    const etag = (await ownerApi(filesUrl(id, "/content", { path: "agent/big.txt" }))).headers.get("etag") as string;
    const md5 = (command: string) => shell(container, `${command} | md5sum`);
    const oldSum = md5("cat /workspace/agent/big.txt");
    const newSum = md5(`head -c ${size} /dev/zero | tr '\\0' b`);
    const before = agentPid();

    // In the container, as soon as the save's temporary file appears, the agent is killed.
    const killer = new Promise<string>((resolve, reject) =>
      execFile(
        "docker",
        [
          "exec",
          container,
          "sh",
          "-c",
          // "caught" only when the temporary file was there: the kill then lands in the middle of the save.
          `for i in $(seq 400); do ls -A /workspace/agent | grep -q 'save-' && echo caught && break; sleep 0.025; done; kill -9 ${before}`,
        ],
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    );
    // The upload may be cut off when the save fails before all of it was sent: then fetch itself fails.
    const response = await ownerApi(filesUrl(id, "/content", { path: "agent/big.txt" }), {
      method: "PUT",
      headers: { "If-Match": etag },
      body: new Uint8Array(size).fill("b".charCodeAt(0)),
    }).catch((error: unknown) => error);
    expect(await killer).toContain("caught");
    const sum = md5("cat /workspace/agent/big.txt");
    // Old or new, never torn.
    expect([oldSum, newSum]).toContain(sum);
    if (sum === newSum) {
      expect(response).toBeInstanceOf(Response);
      expect((response as Response).status).toBe(200);
    } else if (response instanceof Response) {
      // Killed mid-write: the old file stays, and the caller hears why.
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({
        code: "CONTAINER_UNAVAILABLE",
        message: expect.stringContaining("stopped during this request"),
      });
    }

    // The next request is served, by a new agent.
    const read = await ownerApi(filesUrl(id, "/stat", { path: "agent/big.txt" }));
    expect(read.status).toBe(200);
    const after = agentPid();
    expect(after).toMatch(/^\d+$/);
    expect(after).not.toBe(before);
    expect(await status()).toMatchObject({ agent: "resident" });
    // Nothing half-written stays behind: the failed save's temporary file is removed (by the new agent).
    await expect
      .poll(() => shell(container, "ls -A /workspace/agent"), { timeout: 60_000, interval: 500 })
      .not.toContain("save-");
  });
});
