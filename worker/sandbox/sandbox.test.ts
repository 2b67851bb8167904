import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { ContainerSandbox } from "./sandbox";

/** A stand-in for `ctx.container`: exec answers from a script of outcomes. */
function fakeContainer(outcomes: Array<"not running" | "paused" | "ok" | Error>) {
  const calls: { argv: string[]; options: ContainerExecOptions }[] = [];
  let killed = 0;
  const container = {
    running: true,
    async exec(argv: string[], options: ContainerExecOptions) {
      calls.push({ argv, options });
      const outcome = outcomes.length > 1 ? outcomes.shift() : outcomes[0];
      if (outcome === "not running") throw new Error("exec() cannot be called on a container that is not running");
      if (outcome === "paused") throw new Error("Container is paused");
      if (outcome instanceof Error) throw outcome;
      const empty = new Uint8Array(0);
      return {
        stdin: null,
        stdout: null,
        stderr: null,
        isPty: false,
        exitCode: Promise.resolve(0),
        output: async () => ({ exitCode: 0, stdout: new TextEncoder().encode(`ran ${argv[0]}`), stderr: empty }),
        resize() {},
        kill() {
          killed++;
        },
      };
    },
  };
  const ctx = { container } as unknown as DurableObjectState;
  return { ctx, container, calls, killed: () => killed };
}

describe("ContainerSandbox.exec: the one wait-until-exec-works policy", () => {
  it("wakes the container first, then retries 'not running' and 'paused' until exec answers", async () => {
    const fake = fakeContainer(["not running", "paused", "ok"]);
    let wakes = 0;
    const sandbox = new ContainerSandbox(fake.ctx, async () => {
      wakes++;
    });
    expect(await sandbox.stdout(["uname", "-a"])).toBe("ran uname");
    expect(wakes).toBe(1);
    expect(fake.calls).toHaveLength(3);
    expect(fake.calls[0]?.options.cwd).toBe("/");
  });

  it("gives up after waitMs with CONTAINER_UNAVAILABLE, not the engine's text as a bug", async () => {
    const fake = fakeContainer(["not running"]);
    const sandbox = new ContainerSandbox(fake.ctx, async () => {});
    const error = await sandbox.exec(["true"], { waitMs: 120 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "CONTAINER_UNAVAILABLE" });
  });

  it("with wake: false, fails at once when no container runs and never wakes it", async () => {
    const fake = fakeContainer(["ok"]);
    fake.container.running = false;
    let wakes = 0;
    const sandbox = new ContainerSandbox(fake.ctx, async () => {
      wakes++;
    });
    await expect(sandbox.run(["ls"], { wake: false })).rejects.toMatchObject({ code: "CONTAINER_UNAVAILABLE" });
    expect(wakes).toBe(0);
    expect(fake.calls).toHaveLength(0);
  });

  it("wakes a container that stopped while it waited", async () => {
    const fake = fakeContainer(["not running", "ok"]);
    const exec = fake.container.exec.bind(fake.container);
    fake.container.exec = async (argv, options) => {
      // The first attempt finds it gone (stopped or vanished meanwhile).
      if (fake.calls.length === 0) fake.container.running = false;
      return exec(argv, options);
    };
    let wakes = 0;
    const sandbox = new ContainerSandbox(fake.ctx, async () => {
      wakes++;
      fake.container.running = true;
    });
    await sandbox.exec(["true"]);
    expect(wakes).toBe(2);
    expect(fake.calls).toHaveLength(2);
  });

  it("takes an exec that raced a stop or a delete for a container that is not there (issue 19)", async () => {
    const fake = fakeContainer([new Error("Error: cannot exec in a stopped state")]);
    fake.container.exec = ((exec) => async (argv: string[], options: ContainerExecOptions) => {
      fake.container.running = false;
      return exec(argv, options);
    })(fake.container.exec.bind(fake.container));
    const sandbox = new ContainerSandbox(fake.ctx, async () => {});
    await expect(sandbox.exec(["true"], { wake: false })).rejects.toMatchObject({ code: "CONTAINER_UNAVAILABLE" });
  });

  it("throws any other error at once", async () => {
    const fake = fakeContainer([new Error("no such file")]);
    const sandbox = new ContainerSandbox(fake.ctx, async () => {});
    await expect(sandbox.exec(["nope"])).rejects.toThrow("no such file");
    expect(fake.calls).toHaveLength(1);
  });

  it("stdout() throws with the command's stderr when it exits non-zero", async () => {
    const fake = fakeContainer(["ok"]);
    const sandbox = new ContainerSandbox(fake.ctx, async () => {});
    sandbox.run = async () => ({ exitCode: 2, stdout: "", stderr: "bad thing\n" });
    await expect(sandbox.stdout(["x"])).rejects.toThrow("x exited with 2: bad thing");
  });
});

describe("ContainerSandbox.spawn", () => {
  it("records the process's own pid and kills it (and its children) by that pid, never with ExecProcess.kill()", async () => {
    const fake = fakeContainer(["ok"]);
    const sandbox = new ContainerSandbox(fake.ctx, async () => {});
    const process = await sandbox.spawn(["rg", "--json", "needle"], { stdout: "pipe" });
    const spawned = fake.calls[0];
    expect(spawned?.argv.slice(0, 2)).toEqual(["sh", "-c"]);
    expect(spawned?.argv.slice(4)).toEqual(["rg", "--json", "needle"]);
    const pidFile = spawned?.argv[3] as string;
    expect(pidFile).toMatch(/^\/tmp\/\.cloud-ide-process-/);

    await process.kill("INT");
    const kill = fake.calls.find((call) => call.argv.includes("INT"));
    expect(kill?.argv).toContain(pidFile);
    expect(kill?.argv.join(" ")).toContain("pkill");
    expect(fake.killed()).toBe(0);
  });
});
