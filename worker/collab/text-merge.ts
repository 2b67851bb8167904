/**
 * Text diffs for shared documents (diff-match-patch): the edits that turn
 * one text into another, and the merge of a change made on disk (from a
 * terminal, git, an agent) into a shared text that has unsaved edits.
 */
import DiffMatchPatch from "diff-match-patch";

const dmp = new DiffMatchPatch();
// Bounded: a diff of two large, unrelated texts stops refining after this and stays correct.
dmp.Diff_Timeout = 0.2;

export interface TextEdit {
  /** Offset in the text before any of the edits. */
  from: number;
  deleteCount: number;
  insert: string;
}

/** The edits that turn `current` into `target`, in order, each against the text before any of them. */
export function textEdits(current: string, target: string): TextEdit[] {
  if (current === target) return [];
  const diffs = dmp.diff_main(current, target);
  dmp.diff_cleanupSemantic(diffs);
  const edits: TextEdit[] = [];
  let at = 0;
  for (const [operation, text] of diffs) {
    const last = edits.at(-1);
    const touching = last !== undefined && last.from + last.deleteCount === at;
    if (operation === DiffMatchPatch.DIFF_EQUAL) {
      at += text.length;
    } else if (operation === DiffMatchPatch.DIFF_DELETE) {
      if (touching) last.deleteCount += text.length;
      else edits.push({ from: at, deleteCount: text.length, insert: "" });
      at += text.length;
    } else if (touching) {
      last.insert += text;
    } else {
      edits.push({ from: at, deleteCount: 0, insert: text });
    }
  }
  return edits;
}

/**
 * The disk went from `base` (what the shared document was last read from or
 * saved as) to `disk`, while the shared text became `current`: the disk's
 * changes applied to `current` (a three-way merge; a hunk whose context is
 * gone is left out, the shared edits win there).
 */
export function mergeDiskChange(base: string, disk: string, current: string): string {
  if (current === base) return disk;
  if (disk === base || current === disk) return current;
  const [merged] = dmp.patch_apply(dmp.patch_make(base, disk), current);
  return merged;
}
