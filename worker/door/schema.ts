/**
 * Schema pieces the routes share. A refusal names its error code in the
 * issue's params (`{ code }`), so the dispatcher answers it with that code;
 * an issue without one answers the route's `invalid` code (BAD_REQUEST by
 * default). Checks the project already has (they return the value or throw
 * an AppError) become schemas with `check()`, keeping their codes and
 * messages.
 */
import { z } from "zod";
import { ERROR_STATUS, ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";

/** A schema from a check that returns the checked value or throws an AppError. */
export function check<T>(fn: (value: unknown) => T): z.ZodType<T, unknown> {
  // optional() first: a missing key is handed to the check too (zod refuses a missing key otherwise).
  return z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      try {
        return fn(value);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        ctx.addIssue({ code: "custom", message: error.message, params: { code: error.code } });
        return z.NEVER;
      }
    });
}

/** The options of a refinement whose refusal answers `code` with `message` (made from the input, if a function). */
export function refusal(
  code: ErrorCode,
  message: string | ((input: unknown) => string),
): { error: string | ((issue: { input?: unknown }) => string); params: { code: ErrorCode } } {
  return { error: typeof message === "string" ? message : (issue) => message(issue.input), params: { code } };
}

/** A query flag: `1` or `true` is true, anything else (or nothing) false. */
export const flag = z
  .string()
  .optional()
  .transform((value) => value === "1" || value === "true");

/** A log's `?after=` cursor: the id of the last entry the caller has (a number), 0 when absent. */
export const afterEntry = z
  .string()
  .optional()
  .refine(
    (after) => after === undefined || /^\d{1,15}$/.test(after),
    refusal(ErrorCode.BAD_REQUEST, "after must be a log entry id (a number)."),
  )
  .transform((after) => Number(after ?? "0"));

/** No input of this kind: whatever is sent is ignored. */
export const none = z.object({});

/** The AppError a failed parse answers: the first issue's code and message. */
export function refusalOf(error: z.ZodError, fallback: ErrorCode): AppError {
  const issue = error.issues[0];
  const named = issue?.code === "custom" ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
  const code = typeof named === "string" && named in ERROR_STATUS ? (named as ErrorCode) : fallback;
  const field = issue?.path.join(".") ?? "";
  const where = field && issue?.code !== "custom" && !issue?.message.startsWith(field) ? `${field}: ` : "";
  return new AppError(code, `${where}${issue?.message ?? "The request's input is not valid."}`);
}
