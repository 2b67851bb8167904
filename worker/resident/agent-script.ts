import LOOPBACK_FORWARDER from "../../sandbox/loopback_forwarder.py?raw";
import RESIDENT_AGENT from "../../sandbox/resident_agent.py?raw";
import { withFileOperations } from "./file-operations";

/** The line of resident_agent.py that stands for loopback_forwarder.py. */
const FORWARDER_IMPORT = /^from loopback_forwarder import [^\n]*$/m;

/**
 * The resident agent: one long-lived Python process per container
 * (`python3 -c AGENT_SCRIPT ROOT`) that answers file operations, streams
 * change events and forwards loopback-only dev servers
 * (sandbox/resident_agent.py says how; the framing is in agent-protocol.ts).
 * `python3 -c` runs one text: the modules it imports go in place of their
 * import lines.
 */
export const AGENT_SCRIPT = withForwarder(withFileOperations(RESIDENT_AGENT));

function withForwarder(program: string): string {
  if (!FORWARDER_IMPORT.test(program)) throw new Error("The program has no `from loopback_forwarder import` line");
  // A function, so a `$` in the Python is never read as a replacement pattern.
  return program.replace(FORWARDER_IMPORT, () => LOOPBACK_FORWARDER);
}
