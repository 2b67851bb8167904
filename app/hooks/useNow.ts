import { useEffect, useState } from "react";

/** The time now, renewed every `everyMs`: for "3 minutes ago" and "42s left" that stay true while shown. */
export function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
