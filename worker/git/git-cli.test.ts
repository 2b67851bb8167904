import { describe, expect, it } from "vitest";
import type { RunResult } from "../sandbox/sandbox";
import { GitCli, gitFailure, isNotARepository } from "./git-cli";

/** A container whose git answers `exitCode` for a command, and `repository` for `rev-parse --git-dir`. */
function git(exitCode: number, repository: boolean) {
  const ran: string[][] = [];
  const sandbox = {
    run: async (argv: string[]): Promise<RunResult> => {
      ran.push(argv);
      if (argv[1] === "rev-parse") return { exitCode: repository ? 0 : 128, stdout: "", stderr: "" };
      // Words that must not decide anything: a repository's own failure can say them too.
      return { exitCode, stdout: "", stderr: "fatal: not a git repository (or any of the parent directories): .git" };
    },
    spawn: () => Promise.reject(new Error("not used")),
  };
  return { cli: new GitCli(sandbox), ran };
}

describe("GitCli", () => {
  it("asks git by exit status whether a fatal failure means there is no repository, never by its words", async () => {
    const none = git(128, false);
    const outside = await none.cli.run(["status"]);
    expect(isNotARepository(outside)).toBe(true);
    expect(gitFailure(outside).code).toBe("NOT_A_REPOSITORY");
    expect(none.ran.map((argv) => argv[1])).toEqual(["status", "rev-parse"]);

    const inside = await git(128, true).cli.run(["status"]);
    expect(isNotARepository(inside)).toBe(false);
    expect(gitFailure(inside).code).toBe("GIT_REFUSED");

    // Any other failure is git's refusal, and costs no second command.
    const refused = git(1, false);
    expect(isNotARepository(await refused.cli.run(["commit"]))).toBe(false);
    expect(refused.ran).toHaveLength(1);
  });
});
