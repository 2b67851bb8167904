/**
 * Who a participant is on a shared document: their name (the owner's, or a
 * member's display name) and a colour of their own, the same in every tab
 * and every file, derived from their user id.
 */
import type { CollabUser } from "../../protocol/collab";

/** Distinct on the editor's dark background; the light form is for selections. */
const PALETTE = ["#e06c75", "#98c379", "#e5c07b", "#61afef", "#c678dd", "#56b6c2", "#d19a66", "#f472b6"];

export function collabUser(id: string, name: string): CollabUser {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) >>> 0;
  const color = PALETTE[hash % PALETTE.length] as string;
  return { id, name, color, colorLight: `${color}33` };
}
