import type { ErrorBody, ErrorCode } from "../protocol/errors";

/**
 * The one error the core throws for a failure it expects: a code from
 * protocol/errors.ts and a message a person can act on. It says nothing about
 * HTTP: the status comes from ERROR_STATUS where an answer is made.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Only for TOO_MANY_ATTEMPTS: when to try again (answered as Retry-After). */
    readonly retryAfterSeconds?: number,
    /** A failed HTTP precondition (`If-None-Match: *` on a file that exists): answered 412 (errorStatus). */
    readonly precondition = false,
  ) {
    super(message);
    this.name = "AppError";
  }

  toJSON(): FailureBody {
    return this.retryAfterSeconds === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, retryAfterSeconds: this.retryAfterSeconds };
  }

  static from(body: FailureBody): AppError {
    return new AppError(body.code, body.message, body.retryAfterSeconds);
  }
}

/** An {@link AppError} as plain data, as it crosses Durable Object RPC. */
export type FailureBody = ErrorBody & { retryAfterSeconds?: number };

export const notFound = (message = "Nothing is here.") => new AppError("NOT_FOUND", message);

/** Formats anything thrown for a log line or an error message. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What every Workspace RPC method returns: RPC keeps only the message of a
 * thrown error, so an expected failure comes back as data. A bug still throws
 * (the Worker logs it and answers 500).
 */
export type RpcResult<T> = { ok: true; value: T } | { ok: false; error: FailureBody };

/** Runs an RPC method's body: its value, or its AppError as data. */
export async function settle<T>(operation: () => T | Promise<T>): Promise<RpcResult<T>> {
  try {
    return { ok: true, value: await operation() };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, error: error.toJSON() };
    throw error;
  }
}

/** The Worker's side of {@link settle}: the value, or the AppError thrown again. */
export function unwrap<T>(result: RpcResult<T>): T {
  if (result.ok) return result.value;
  throw AppError.from(result.error);
}
