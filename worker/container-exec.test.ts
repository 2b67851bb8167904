import { describe, expect, it } from "vitest";
import { execWhenRunning } from "./container-exec";

/** Just enough of a Container for exec(): answers from a script of outcomes. */
function fakeContainer(outcomes: Array<"not running" | "other error" | "ok">) {
  const calls: string[][] = [];
  const container = {
    running: false,
    async exec(argv: string[]) {
      calls.push(argv);
      const outcome = outcomes.shift() ?? "ok";
      if (outcome === "not running") throw new Error("Error: the container is not running, consider calling start()");
      if (outcome === "other error") throw new Error("permission denied");
      return { argv } as unknown as ExecProcess;
    },
  };
  return { container: container as unknown as Container & { running: boolean }, calls };
}

describe("execWhenRunning", () => {
  it("waits out a container that is not running yet", async () => {
    const { container, calls } = fakeContainer(["not running", "not running", "ok"]);
    await expect(execWhenRunning(container, ["true"], {})).resolves.toEqual({ argv: ["true"] });
    expect(calls).toHaveLength(3);
  });

  it("throws any other error at once", async () => {
    const { container, calls } = fakeContainer(["other error", "ok"]);
    await expect(execWhenRunning(container, ["true"], {})).rejects.toThrow("permission denied");
    expect(calls).toHaveLength(1);
  });

  it("starts a container that stopped meanwhile", async () => {
    const { container } = fakeContainer(["not running", "ok"]);
    let starts = 0;
    const ensureRunning = async () => {
      starts++;
      container.running = true;
    };
    await execWhenRunning(container, ["true"], {}, { ensureRunning });
    expect(starts).toBe(1);
  });

  it("gives up with the last error once the wait is over", async () => {
    const { container, calls } = fakeContainer(Array(1000).fill("not running"));
    await expect(execWhenRunning(container, ["true"], {}, { waitMs: 120 })).rejects.toThrow(/not running/);
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.length).toBeLessThan(10);
  });
});
