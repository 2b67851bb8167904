/** What {@link within} answers when the promise had not settled in time. */
export const LATE: unique symbol = Symbol("late");

/**
 * `promise`'s value if it settles within `ms`, else {@link LATE} (the promise
 * goes on unwatched). A rejection within the time comes through as one: a
 * caller that waits only so long still learns that the work failed.
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
