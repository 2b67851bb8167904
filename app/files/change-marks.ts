/**
 * How source control's change codes show, in the tree and in the Source
 * Control panel. The tree owns them (git's panel imports files/, never the
 * other way round).
 */

/** What each mark means, for its tooltip. */
export const MARK_TITLES: Readonly<Record<string, string>> = {
  M: "Modified",
  A: "Added",
  D: "Deleted",
  R: "Renamed",
  C: "Copied",
  T: "Type changed",
  U: "Conflicted",
  "?": "Untracked",
  "•": "Holds changes",
};

/** How a change code shows: untracked as U (as editors show it), a conflict as !. */
export function codeLabel(code: string): string {
  return code === "?" ? "U" : code === "U" ? "!" : code;
}
