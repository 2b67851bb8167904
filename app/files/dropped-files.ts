/** A file dropped from the desktop, with its path relative to the drop (folders kept). */
export interface DroppedFile {
  path: string;
  file: File;
}

/**
 * Reads files and whole folders from a drop. Folders come through the
 * File System entries API (webkitGetAsEntry), which every current browser has.
 */
export async function collectDrop(data: DataTransfer): Promise<DroppedFile[]> {
  const entries = Array.from(data.items)
    .map((item) => (item.kind === "file" ? item.webkitGetAsEntry?.() : null))
    .filter((entry): entry is FileSystemEntry => !!entry);
  if (entries.length === 0) return Array.from(data.files, (file) => ({ path: file.name, file }));
  const out: DroppedFile[] = [];
  for (const entry of entries) await walk(entry, "", out);
  return out;
}

async function walk(entry: FileSystemEntry, prefix: string, out: DroppedFile[]): Promise<void> {
  const path = prefix ? `${prefix}/${entry.name}` : entry.name;
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ path, file });
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries returns at most ~100 entries a call: read until it returns none.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    for (const child of batch) await walk(child, path, out);
  }
}
