export interface ImageLedger {
  snapshots: Set<string>;
  builds: Set<string>;
  removeRecorded(): Promise<void>;
}
export function startImageLedger(workerName: string): ImageLedger;
export function parseEvent(
  line: string,
): { action: string; name: string; image?: string; imageRef?: string } | undefined;
