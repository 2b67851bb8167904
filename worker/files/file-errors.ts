import { ErrorCode } from "../../protocol/errors";
import { ApiError } from "../http";
import { OUTSIDE_ROOT_DETAIL, SandboxFileError } from "./sandbox-file-error";

/**
 * Maps a Linux error from a file operation to an HTTP error a person can act
 * on. `display` is the workspace-relative path the client asked about.
 */
export function fileApiError(error: unknown, display: string, destination?: string): unknown {
  if (!SandboxFileError.is(error)) return error;
  const where = `"${display}"`;
  const to = destination ? `"${destination}"` : where;
  switch (error.code) {
    case "ENOENT":
      return new ApiError(404, ErrorCode.FILE_NOT_FOUND, `${where} does not exist (or its folder does not).`);
    case "EEXIST":
      return new ApiError(409, ErrorCode.FILE_EXISTS, `${to} already exists: choose another name or remove it first.`);
    case "ENOTEMPTY":
      return new ApiError(409, ErrorCode.DIRECTORY_NOT_EMPTY, `${to} is a folder that is not empty.`);
    case "EISDIR":
      return new ApiError(
        400,
        ErrorCode.IS_A_DIRECTORY,
        `${where} is a folder: ${error.operation === "remove" ? "pass recursive=1 to delete a folder" : "this needs a file"}.`,
      );
    case "ENOTDIR":
      return new ApiError(400, ErrorCode.NOT_A_DIRECTORY, `Part of ${where} is a file where a folder is expected.`);
    case "ENOSPC":
    case "EDQUOT":
      return new ApiError(507, ErrorCode.NO_SPACE, `The workspace disk is full: free some space and try again.`);
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new ApiError(403, ErrorCode.PERMISSION_DENIED, `${where}: ${error.detail}.`);
    case "EXDEV":
      if (error.detail === OUTSIDE_ROOT_DETAIL) {
        return new ApiError(
          403,
          ErrorCode.PATH_OUTSIDE_WORKSPACE,
          `${where} leads outside /workspace through a symbolic link, so the IDE will not touch it.`,
        );
      }
      return new ApiError(409, ErrorCode.CROSS_DEVICE, `${where} and ${to} are on different filesystems.`);
    case "ESTALE":
      return new ApiError(412, ErrorCode.FILE_CHANGED, `${where} changed since you opened it: reload or overwrite.`);
    case "ENAMETOOLONG":
      return new ApiError(400, ErrorCode.INVALID_PATH, `${where} is too long.`);
    case "EINVAL":
    case "EILSEQ":
      return new ApiError(400, ErrorCode.BAD_REQUEST, `${where}: ${error.detail}.`);
    default:
      return new ApiError(500, ErrorCode.FILE_ERROR, `${where}: ${error.detail} (${error.code}).`);
  }
}
