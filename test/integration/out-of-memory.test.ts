import { randomBytes } from "node:crypto";
import { freemem } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { docker } from "../support/containers";
import { filesUrl, putFile, readHash, sha256, shell } from "../support/files";
import { removeWhatWeMade, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";
import { marker, openTerminalSocket } from "../support/terminal-client";

/**
 * Issue 45's fault matrix, out of memory: a person's program that allocates
 * past the container's memory limit is the one the kernel kills; the tmux
 * server (every terminal), the resident agent and the terminal's socket stay
 * (sandbox/pane-shell.sh, sandbox/tmux.conf, docs/terminal.md). Saves made
 * while the program fills the memory are each whole or refused, never torn.
 */
afterAll(removeWhatWeMade);

/** The smallest machine a workspace may have (protocol/workspace.ts), the default: standard-1, 4 GiB. */
const MEMORY_LIMIT = 4 * 1024 * 1024 * 1024;

/** The container's memory limit as its own cgroup says (v2, else v1), in bytes: "max" or a huge v1 value is none. */
function cgroupMemoryLimit(container: string): number {
  const text = shell(
    container,
    "cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes",
  ).trim();
  return /^\d+$/.test(text) ? Number(text) : Number.POSITIVE_INFINITY;
}

/** A process's oom_score_adj in the container. */
const scoreOf = (container: string, pid: string) => shell(container, `cat /proc/${pid}/oom_score_adj`).trim();

describe("out of memory", { timeout: 240_000 }, () => {
  it("kills the person's program, not tmux or the resident agent: the terminal stays connected and files still work", async () => {
    const id = await createWorkspace("out of memory", "empty");
    const { container } = await wake(id);

    // Refuse rather than risk the machine: the allocation below stops only at the container's limit.
    expect(Number(docker("inspect", "-f", "{{.HostConfig.Memory}}", container))).toBe(MEMORY_LIMIT);
    const limit = cgroupMemoryLimit(container);
    if (!(limit <= MEMORY_LIMIT)) {
      throw new Error(
        `the container's cgroup has no memory limit of ${MEMORY_LIMIT} bytes (it says ${limit}): not allocating`,
      );
    }
    // Nor when the host could not spare it (os.freemem() is Linux's MemAvailable): 2 GiB left for the rest.
    if (freemem() < limit + 2 * 1024 * 1024 * 1024) {
      throw new Error(`the host has ${freemem()} bytes available, too few to fill a ${limit}-byte container safely`);
    }

    const term = await openTerminalSocket(id, "main");
    const ready = marker();
    term.type(`${ready.command}\r`);
    await term.waitFor(ready.pattern);

    const tmuxServer = shell(container, "tmux display-message -p '#{pid}'").trim();
    const paneShell = shell(container, "tmux display-message -p -t '=main:' '#{pane_pid}'").trim();
    const agent = shell(container, 'pgrep -f "cloud-ide[ ]resident agent"').trim();
    expect(tmuxServer).toMatch(/^\d+$/);
    expect(agent).toMatch(/^\d+$/);
    // The person's shell is the first the kernel takes; the IDE's own processes keep the container's score.
    expect(scoreOf(container, paneShell)).toBe("500");
    expect(Number(scoreOf(container, tmuxServer))).toBeLessThanOrEqual(0);
    expect(Number(scoreOf(container, agent))).toBeLessThanOrEqual(0);

    // Writes every page of 64 MiB blocks (bytes of b"x"), forever: only the OOM killer ends it.
    term.type(`python3 -c "b = [b'x' * (64 << 20) for _ in iter(int, 1)]"; echo "hog exit=$?"\r`);
    let hogEnded = false;
    const hog = term.waitFor(/^hog exit=\d+$/m, 180_000).finally(() => {
      hogEnded = true;
    });
    // Saves while it fills the memory: each answers, and is whole (200) or refused with a code.
    const saves: { path: string; hash: string; status: number; code?: string }[] = [];
    while (!hogEnded && saves.length < 60) {
      const bytes = new Uint8Array(randomBytes(4 << 20));
      const path = `during-oom/${saves.length}.bin`;
      const response = await putFile(id, path, bytes);
      const code = response.ok ? undefined : ((await response.json().catch(() => ({}))) as { code?: string }).code;
      if (response.ok) await response.body?.cancel();
      saves.push({ path, hash: sha256(bytes), status: response.status, code });
    }
    const after = await hog;
    expect(after).toMatch(/^hog exit=137$/m);
    expect(after).toMatch(/^Killed/m);

    // The same socket answers a new command; tmux and the agent are the same processes as before.
    expect(term.ws.readyState).toBe(term.ws.OPEN);
    const again = marker();
    term.type(`${again.command}\r`);
    await term.waitFor(again.pattern);
    expect(shell(container, "tmux display-message -p '#{pid}'").trim()).toBe(tmuxServer);
    expect(shell(container, 'pgrep -f "cloud-ide[ ]resident agent"').trim()).toBe(agent);

    expect(saves.length).toBeGreaterThan(0);
    for (const save of saves) {
      const read = await readHash(id, save.path);
      if (save.status === 200) expect(read, save.path).toMatchObject({ status: 200, hash: save.hash });
      else {
        expect(save.code, save.path).toMatch(/^[A-Z_]+$/);
        // Refused: not there, or there whole, never torn.
        if (read.status === 200) expect(read.hash, save.path).toBe(save.hash);
        else expect(read.status, save.path).toBe(404);
      }
    }
    console.log(`saves during the out-of-memory: ${saves.map((save) => save.code ?? save.status).join(" ")}`);

    expect((await putFile(id, "after-oom.txt", "still here")).status).toBe(200);
    const read = await ownerApi(filesUrl(id, "/content", { path: "after-oom.txt" }));
    expect(read.status).toBe(200);
    expect(await read.text()).toBe("still here");
    term.ws.close();
  });
});
