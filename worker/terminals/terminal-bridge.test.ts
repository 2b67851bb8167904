/**
 * When a tmux client ends, the bridge asks whether its session ended (close
 * the tab) or only its container went (reconnect). Pure logic against a fake
 * sandbox that answers `tmux has-session`.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import type { RunResult, Sandbox } from "../sandbox/sandbox";
import { sessionEnded } from "./terminal-bridge";

/** A sandbox whose `run` answers has-session with `answer()`; `generation` as set. */
function sandboxAnswering(answer: (sandbox: { generation: number }) => Promise<RunResult>) {
  const state = { generation: 1, runs: 0 };
  const sandbox = {
    get generation() {
      return state.generation;
    },
    run: async (argv: string[]) => {
      expect(argv.slice(0, 2)).toEqual(["tmux", "has-session"]);
      state.runs++;
      return answer(state);
    },
  } as unknown as Sandbox;
  return { sandbox, state };
}

const gone: RunResult = { exitCode: 1, stdout: "", stderr: "can't find session: main" };
const there: RunResult = { exitCode: 0, stdout: "", stderr: "" };

describe("whether a terminal's session ended", () => {
  it("is yes when its own container says the session is gone, no when it is there", async () => {
    expect(await sessionEnded(sandboxAnswering(async () => gone).sandbox, "main", 1)).toBe(true);
    expect(await sessionEnded(sandboxAnswering(async () => there).sandbox, "main", 1)).toBe(false);
  });

  it("is no, without asking, once a newer container runs (a removed one brought back has no tmux yet)", async () => {
    const { sandbox, state } = sandboxAnswering(async () => gone);
    state.generation = 2;
    expect(await sessionEnded(sandbox, "main", 1)).toBe(false);
    expect(state.runs).toBe(0);
  });

  it("is no when a newer container started while it asked", async () => {
    const { sandbox } = sandboxAnswering(async (state) => {
      state.generation++;
      return gone;
    });
    expect(await sessionEnded(sandbox, "main", 1)).toBe(false);
  });

  it("asks again after an engine error, and is no at once when the container does not run", async () => {
    let calls = 0;
    const flaky = sandboxAnswering(async () => {
      if (++calls === 1) throw new Error("engine hiccup");
      return gone;
    });
    expect(await sessionEnded(flaky.sandbox, "main", 1)).toBe(true);
    expect(flaky.state.runs).toBe(2);

    const stopped = sandboxAnswering(async () => {
      throw new AppError(
        ErrorCode.CONTAINER_UNAVAILABLE,
        "The container does not answer (it is not running); try again.",
      );
    });
    expect(await sessionEnded(stopped.sandbox, "main", 1)).toBe(false);
    expect(stopped.state.runs).toBe(1);
  });
});
