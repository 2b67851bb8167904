import { useCallback, useSyncExternalStore } from "react";

/** Whether a CSS media query matches, kept up to date. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const list = matchMedia(query);
      list.addEventListener("change", onChange);
      return () => list.removeEventListener("change", onChange);
    },
    [query],
  );
  return useSyncExternalStore(subscribe, () => matchMedia(query).matches);
}

/** Phones and tablets in portrait: the panes become tabs. */
export const COMPACT_LAYOUT = "(max-width: 900px)";
/** A touch screen without a fine pointer: the terminal gets its key bar. */
export const TOUCH_SCREEN = "(pointer: coarse)";
