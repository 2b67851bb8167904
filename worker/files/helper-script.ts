import FILE_HELPER from "../../sandbox/file_helper.py?raw";
import { withFileOperations } from "../resident/file-operations";

/**
 * The program that every file operation runs in the container when the
 * resident agent cannot (`python3 -c HELPER_SCRIPT op root args...`): one
 * process per operation (sandbox/file_helper.py lists the operations).
 */
export const HELPER_SCRIPT = withFileOperations(FILE_HELPER);
