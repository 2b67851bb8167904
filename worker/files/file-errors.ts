import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { OUTSIDE_ROOT_DETAIL, SandboxFileError, SandboxProtocolError } from "./sandbox-file-error";

/**
 * Maps a Linux error from a file operation to an AppError a person can act
 * on. `display` is the workspace-relative path the client asked about.
 */
export function fileError(error: unknown, display: string, destination?: string): unknown {
  if (SandboxProtocolError.is(error)) return new AppError(ErrorCode.FILE_ERROR, `"${display}": ${error.message}`);
  if (!SandboxFileError.is(error)) return error;
  const where = `"${display}"`;
  const to = destination ? `"${destination}"` : where;
  switch (error.code) {
    case "ENOENT":
      return new AppError(ErrorCode.FILE_NOT_FOUND, `${where} does not exist (or its folder does not).`);
    case "EEXIST":
      return new AppError(ErrorCode.FILE_EXISTS, `${to} already exists: choose another name or remove it first.`);
    case "ENOTEMPTY":
      return new AppError(ErrorCode.DIRECTORY_NOT_EMPTY, `${to} is a folder that is not empty.`);
    case "EISDIR":
      return new AppError(
        ErrorCode.IS_A_DIRECTORY,
        `${where} is a folder: ${error.operation === "remove" ? "pass recursive=1 to delete a folder" : "this needs a file"}.`,
      );
    case "ENOTDIR":
      return new AppError(ErrorCode.NOT_A_DIRECTORY, `Part of ${where} is a file where a folder is expected.`);
    case "ENOSPC":
    case "EDQUOT":
      return new AppError(ErrorCode.NO_SPACE, `The workspace disk is full: free some space and try again.`);
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new AppError(ErrorCode.PERMISSION_DENIED, `${where}: ${error.detail}.`);
    case "EXDEV":
      if (error.detail === OUTSIDE_ROOT_DETAIL) {
        return new AppError(
          ErrorCode.PATH_OUTSIDE_WORKSPACE,
          `${where} leads outside /workspace through a symbolic link, so the IDE will not touch it.`,
        );
      }
      return new AppError(ErrorCode.CROSS_DEVICE, `${where} and ${to} are on different filesystems.`);
    case "ESTALE":
      return new AppError(ErrorCode.FILE_CHANGED, `${where} changed since you opened it: reload or overwrite.`);
    case "ENAMETOOLONG":
      return new AppError(ErrorCode.INVALID_PATH, `${where} is too long.`);
    case "EINVAL":
    case "EILSEQ":
      return new AppError(ErrorCode.BAD_REQUEST, `${where}: ${error.detail}.`);
    default:
      return new AppError(ErrorCode.FILE_ERROR, `${where}: ${error.detail} (${error.code}).`);
  }
}
