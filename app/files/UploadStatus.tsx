import type { Upload } from "./file-tree-model";

/** Progress of an upload from the desktop, or why it failed. */
export function UploadStatus({ upload, onDismiss }: { upload: Upload; onDismiss: () => void }) {
  const max = Math.max(1, upload.total);
  return (
    <div className="file-tree-upload" data-testid="upload-progress" role="status">
      {upload.error ? (
        <>
          Upload failed: {upload.error}{" "}
          <button type="button" onClick={onDismiss}>
            OK
          </button>
        </>
      ) : (
        <>
          Uploading {upload.done}/{upload.files} · {Math.floor((upload.sent / max) * 100)}%
          <progress value={upload.sent} max={max} />
        </>
      )}
    </div>
  );
}
