import { describe, expect, it } from "vitest";
import { parseUnittest } from "../../scripts/lib/python-checks.mjs";

/** How `npm test` counts Python's unittest (scripts/lib/python-checks.mjs), on its real output's shapes. */
describe("parseUnittest", () => {
  it("counts a passing run, its skips apart", () => {
    const output =
      "test_a (test_x.A.test_a) ... ok\n\n----------------------------------------------------------------------\nRan 12 tests in 0.5s\n\nOK (skipped=2)\n";
    expect(parseUnittest(output)).toEqual({ finished: true, passed: 10, failed: 0, skipped: 2, failedTests: [] });
  });

  it("counts failures and errors as failed, and names them", () => {
    const output = [
      "======================================================================",
      "FAIL: test_b (test_x.A.test_b)",
      "----------------------------------------------------------------------",
      "AssertionError: 1 != 2",
      "======================================================================",
      "ERROR: test_c (test_y.B.test_c)",
      "----------------------------------------------------------------------",
      "Ran 9 tests in 1.2s",
      "",
      "FAILED (failures=1, errors=1, skipped=3)",
    ].join("\n");
    expect(parseUnittest(output)).toEqual({
      finished: true,
      passed: 4,
      failed: 2,
      skipped: 3,
      failedTests: ["test_x.A.test_b", "test_y.B.test_c"],
    });
  });

  it("says a run that ended without its summary did not finish", () => {
    expect(parseUnittest("test_a (test_x.A.test_a) ... ").finished).toBe(false);
  });
});
