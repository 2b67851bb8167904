import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorCode } from "../../protocol/errors";
import { afterEntry, refusalOf } from "./schema";

describe("a log's after cursor", () => {
  const query = z.object({ after: afterEntry });

  it("reads an entry id as a number, and nothing as 0", () => {
    expect(query.parse({ after: "42" })).toEqual({ after: 42 });
    expect(query.parse({})).toEqual({ after: 0 });
    expect(query.parse({ after: "999999999999999" })).toEqual({ after: 999_999_999_999_999 });
  });

  it("refuses anything else with BAD_REQUEST and a message that says what it wants", () => {
    for (const after of ["", "-1", "1.5", "abc", "1e3", "0x10", "1234567890123456"]) {
      const parsed = query.safeParse({ after });
      expect(parsed.success, after).toBe(false);
      if (parsed.success) continue;
      const error = refusalOf(parsed.error, ErrorCode.INTERNAL);
      expect(error.code).toBe(ErrorCode.BAD_REQUEST);
      expect(error.message).toBe("after must be a log entry id (a number).");
    }
  });
});
