import RESIDENT_AGENT from "../../sandbox/resident_agent.py?raw";
import { withFileOperations } from "./file-operations";

/**
 * The resident agent: one long-lived Python process per container
 * (`python3 -c AGENT_SCRIPT ROOT`) that answers file operations and streams
 * change events (sandbox/resident_agent.py says how; the framing is in
 * agent-protocol.ts).
 */
export const AGENT_SCRIPT = withFileOperations(RESIDENT_AGENT);
