import FILE_OPERATIONS from "../../sandbox/file_operations.py?raw";

/**
 * The file operations in Python (sandbox/file_operations.py, where the
 * confinement to the workspace is described), one copy that both ways of
 * reaching the container run: the resident agent and the per-call helper.
 */
export { FILE_OPERATIONS };

/** The line of a program (resident_agent.py, file_helper.py) that stands for file_operations.py. */
const IMPORT_LINE = /^from file_operations import [^\n]*$/m;

/**
 * PROGRAM with file_operations.py in place of its `from file_operations
 * import ...` line: `python3 -c` runs one text, not a module beside it.
 * sandbox/tests/ join them the same way.
 */
export function withFileOperations(program: string): string {
  if (!IMPORT_LINE.test(program)) throw new Error("The program has no `from file_operations import` line");
  // A function, so a `$` in the Python is never read as a replacement pattern.
  return program.replace(IMPORT_LINE, () => FILE_OPERATIONS);
}
