/**
 * The dev server behind the preview pane's Run button: `npm run dev` in
 * /workspace, started in the background with its output kept in a log file,
 * so the pane can show the end of that output when the server dies. The
 * scripts follow the seed (seed-guide §3.2): a boot id tells a live pid from
 * one restored from a snapshot, `setsid` gives STOP a process group to end.
 */
import type { DevServerState } from "../../protocol/previews";

export const DEV_SERVER_DIR = "/var/lib/cloud-ide/servers/dev";
export const DEV_SERVER_COMMAND = "npm run dev";
const OUTPUT_LINES = 40;

const CURRENT = `current() {
	read -r pid boot 2>/dev/null <"$1/pid" &&
		[ "$boot" = "$(cat /proc/sys/kernel/random/boot_id)" ]
}`;

/**
 * sh -c SERVE sh DIR ARGV...: starts ARGV unless it already runs. The shell
 * stays until the server exits (no `&`: background jobs ignore SIGINT), so
 * the exec runs with its output ignored and is not awaited.
 */
export const SERVE = `${CURRENT}
dir=$1; shift
current "$dir" && kill -0 "$pid" 2>/dev/null && exit 0
mkdir -p "$dir" && rm -f "$dir/pid"
setsid sh -c 'echo "$$ $(cat /proc/sys/kernel/random/boot_id)" >"$0/pid"; exec "$@"' \\
	"$dir" "$@" >"$dir/log" 2>&1 </dev/null`;

/** sh -c STATE sh DIR: prints running|exited|stopped, then the end of the log. */
export const STATE = `${CURRENT}
if current "$1"; then
	if kill -0 "$pid" 2>/dev/null; then echo running; else echo exited; fi
	tail -n ${OUTPUT_LINES} "$1/log" 2>/dev/null
else
	echo stopped
fi`;

/** sh -c STOP sh DIR: TERM to the group, KILL after 10 s. */
export const STOP = `${CURRENT}
current "$1" || exit 0
kill -s TERM -- "-$pid" 2>/dev/null
timeout 10 sh -c 'while kill -0 "$0" 2>/dev/null; do sleep 0.1; done' "$pid" ||
	kill -s KILL -- "-$pid" 2>/dev/null
while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
rm -f "$1/pid"`;

export function parseState(output: string): DevServerState {
  const newline = output.indexOf("\n");
  const first = (newline < 0 ? output : output.slice(0, newline)).trim();
  const rest = newline < 0 ? "" : output.slice(newline + 1);
  const state = first === "running" || first === "exited" ? first : "stopped";
  return state === "stopped"
    ? { state, command: DEV_SERVER_COMMAND }
    : { state, command: DEV_SERVER_COMMAND, output: stripAnsi(rest).trimEnd() };
}

// Vite colours its output; the pane shows plain text.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}
