/**
 * The one registry of what an agent can do in a workspace: each tool with
 * its zod input schema, its scope and a handler that calls the workspace's
 * own features (files through the confined `Files` layer, ripgrep search,
 * git, tmux terminals, previews). The MCP endpoint serves it; an agent panel
 * would use the same list.
 */
import { z } from "zod";
import type { AgentScope } from "../../protocol/agents";
import { ErrorCode } from "../../protocol/errors";
import { isTerminalName } from "../../protocol/terminal";
import { AppError } from "../errors";
import type { WorkspaceFiles } from "../files/workspace-files";
import type { GitCli } from "../git/git-cli";
import { isNotARepository } from "../git/git-cli";
import type { SourceControl } from "../git/source-control";
import type { Sandbox } from "../sandbox/sandbox";
import type { WorkspaceSearch } from "../search/workspace-search";
import { listTerminals } from "../terminals/terminal-bridge";
import { editFile, listDirectory, readFile, writeFile } from "./file-tools";
import { runCommand } from "./run-command";
import { searchWorkspace } from "./search-tool";
import { readTerminal, sendTerminalInput } from "./terminal-tools";
import type { ToolOutput } from "./tool-output";

/** What a tool handler may use: the workspace's features, and the call's abort signal. */
export interface ToolContext {
  files: WorkspaceFiles;
  search: WorkspaceSearch;
  git: GitCli;
  scm: SourceControl;
  sandbox: Sandbox;
  /** Listening ports with a fresh owner grant's URL each (never a share link). */
  previews: () => Promise<{ port: number; url: string; expiresAt: string }[]>;
  /** Ends when the token is revoked or expires, or the client goes away. */
  signal: AbortSignal;
}

export type { ToolOutput };

export interface AgentTool {
  name: string;
  title: string;
  description: string;
  scope: AgentScope;
  input: z.ZodObject;
  /** The arguments in a line for the activity log (long text replaced by its length). */
  summarize(args: Record<string, unknown>): string;
  run(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutput>;
}

/** Defines a tool with its arguments typed by its schema. */
function tool<S extends z.ZodRawShape>(definition: {
  name: string;
  title: string;
  description: string;
  scope: AgentScope;
  input: S;
  summarize?: (args: z.infer<z.ZodObject<S>>) => string;
  run: (args: z.infer<z.ZodObject<S>>, context: ToolContext) => Promise<ToolOutput>;
}): AgentTool {
  const input = z.object(definition.input);
  return {
    ...definition,
    input,
    summarize: (args) => (definition.summarize ?? summarizeArgs)(args as z.infer<z.ZodObject<S>>),
    run: (args, context) => definition.run(input.parse(args), context),
  };
}

const path = z
  .string()
  .min(1)
  .max(4096)
  .describe("A path relative to /workspace, such as src/index.ts (. is /workspace).");
const terminalName = z
  .string()
  .refine(isTerminalName, "A terminal name is 1-63 lowercase letters, digits and -, such as main.")
  .describe("The terminal's name, as list_terminals shows it (the IDE's first terminal is main).");

export const AGENT_TOOLS: readonly AgentTool[] = [
  tool({
    name: "read_file",
    title: "Read a file",
    description:
      "Reads a text file of the workspace, whole or a range of lines (1-based, inclusive). Long files are cut; the note says where.",
    scope: "read",
    input: {
      path,
      startLine: z.number().int().min(1).optional().describe("First line to return (1-based)."),
      endLine: z.number().int().min(1).optional().describe("Last line to return (inclusive)."),
    },
    run: (args, c) => readFile(c.files, args.path, args.startLine, args.endLine),
  }),
  tool({
    name: "list_directory",
    title: "List a folder",
    description: "Lists a folder of the workspace: one entry a line, folders with a trailing /, files with their size.",
    scope: "read",
    input: { path: path.default(".") },
    run: (args, c) => listDirectory(c.files, args.path),
  }),
  tool({
    name: "search",
    title: "Search in files",
    description:
      "Searches the workspace's files with ripgrep (honouring .gitignore; node_modules only with includeIgnored). Answers path:line:column: text lines.",
    scope: "read",
    input: {
      query: z.string().min(1).max(2000).describe("The text (or, with regex, the regular expression) to find."),
      regex: z.boolean().optional().describe("query is a regular expression (ripgrep syntax)."),
      matchCase: z.boolean().optional().describe("Match case (otherwise case is ignored)."),
      wholeWord: z.boolean().optional(),
      include: z
        .array(z.string().min(1))
        .max(50)
        .optional()
        .describe("Only these globs or folders, such as src or *.ts."),
      exclude: z.array(z.string().min(1)).max(50).optional(),
      includeIgnored: z.boolean().optional().describe("Also files .gitignore ignores, and node_modules."),
      maxResults: z.number().int().min(1).max(2000).default(200).describe("Stop after this many matching lines."),
    },
    run: (args, c) => searchWorkspace(c.search, args),
  }),
  tool({
    name: "git_status",
    title: "git status",
    description: "The branch, its upstream and the changed files of the repository in /workspace, as JSON.",
    scope: "read",
    input: {},
    run: async (_args, c) => JSON.stringify(await c.scm.status(), null, 1),
  }),
  tool({
    name: "git_diff",
    title: "git diff",
    description:
      "A unified diff of the working tree against the index (or, with staged, the index against HEAD), for one path or all. New untracked files are not in it: git_status lists them, read_file shows them.",
    scope: "read",
    input: { path: path.optional(), staged: z.boolean().optional() },
    run: (args, c) => gitDiff(c, args.path, args.staged === true),
  }),
  tool({
    name: "list_terminals",
    title: "List terminals",
    description:
      "The workspace's terminals (tmux sessions the person sees as tabs): name, what runs in the foreground, busy.",
    scope: "read",
    input: {},
    run: async (_args, c) => JSON.stringify(await listTerminals(c.sandbox), null, 1),
  }),
  tool({
    name: "read_terminal",
    title: "Read a terminal",
    description: "The recent output of a terminal: its screen and the history above it, as plain text.",
    scope: "read",
    input: {
      name: terminalName,
      lines: z.number().int().min(1).max(5000).default(200).describe("Lines of history above the screen to include."),
    },
    run: (args, c) => readTerminal(c.sandbox, args.name, args.lines),
  }),
  tool({
    name: "list_previews",
    title: "List previews",
    description:
      "The ports something listens on in the workspace, each with a preview URL that works for about 5 minutes (ask again for a fresh one).",
    scope: "read",
    input: {},
    run: async (_args, c) => {
      const previews = await c.previews();
      return previews.length === 0
        ? "Nothing listens on a preview port (1024-65535)."
        : JSON.stringify(previews, null, 1);
    },
  }),
  tool({
    name: "write_file",
    title: "Write a file",
    description:
      "Creates or replaces a file with the given text (atomically: written beside it, then renamed into place).",
    scope: "write",
    input: {
      path,
      content: z
        .string()
        .max(4 * 1024 * 1024)
        .describe("The whole new content."),
      createParents: z.boolean().default(true).describe("Create missing folders on the way."),
    },
    summarize: (args) => `${args.path} (${args.content.length} chars)`,
    run: (args, c) => writeFile(c.files, args.path, args.content, args.createParents),
  }),
  tool({
    name: "edit_file",
    title: "Edit a file",
    description:
      "Replaces an exact piece of text in a file. oldText must occur exactly once (include enough surrounding lines), unless replaceAll; otherwise nothing is changed and the answer says why.",
    scope: "write",
    input: {
      path,
      oldText: z.string().min(1).describe("The exact text to replace, whitespace included."),
      newText: z.string().describe("What replaces it."),
      replaceAll: z.boolean().optional().describe("Replace every occurrence."),
    },
    summarize: (args) =>
      `${args.path} (${args.oldText.length} → ${args.newText.length} chars${args.replaceAll ? ", all" : ""})`,
    run: (args, c) => editFile(c.files, args.path, args.oldText, args.newText, args.replaceAll === true),
  }),
  tool({
    name: "run_command",
    title: "Run a command",
    description:
      "Runs a command with bash -lc as root in the workspace's container (the terminal's shell, its network policy applies) and answers its exit code and output (stdout and stderr together; the last 30,000 bytes when longer, and the answer says so). It is killed at the timeout.",
    scope: "write",
    input: {
      command: z
        .string()
        .min(1)
        .max(64 * 1024)
        .describe("The command line, run by bash -lc."),
      cwd: path.default(".").describe("Working folder relative to /workspace (. by default)."),
      timeoutSeconds: z.number().int().min(1).max(600).default(60).describe("Kill it after this many seconds."),
    },
    summarize: (args) => `${clip(args.command, 160)}${args.cwd !== "." ? ` (in ${args.cwd})` : ""}`,
    run: (args, c) => runCommand(c.sandbox, c.files, args, c.signal),
  }),
  tool({
    name: "send_terminal_input",
    title: "Type into a terminal",
    description:
      "Types text into a terminal the person can watch (started if it does not exist), then Enter unless enter is false. Read its output with read_terminal.",
    scope: "write",
    input: {
      name: terminalName,
      text: z
        .string()
        .max(64 * 1024)
        .describe("Typed literally (no key names)."),
      enter: z.boolean().default(true).describe("Press Enter after the text."),
    },
    summarize: (args) => `${args.name}: ${clip(args.text, 160)}${args.enter ? " ⏎" : ""}`,
    run: (args, c) => sendTerminalInput(c.sandbox, args.name, args.text, args.enter),
  }),
];

/** The tools a scope reaches: `read` tools for every token, `write` ones for write tokens only. */
export function toolsFor(scope: AgentScope): AgentTool[] {
  return AGENT_TOOLS.filter((t) => scope === "write" || t.scope === "read");
}

export function findTool(name: string): AgentTool | undefined {
  return AGENT_TOOLS.find((t) => t.name === name);
}

/** Most tools' arguments as `key=value`, strings clipped. */
export function summarizeArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .filter(([, value]) => value !== undefined)
    .map(
      ([key, value]) =>
        `${key}=${typeof value === "string" ? JSON.stringify(clip(value, 120)) : JSON.stringify(value)}`,
    )
    .join(" ");
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ");
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** `git diff` output beyond this is cut (the note says so). */
const DIFF_MAX_CHARS = 200_000;

async function gitDiff(c: ToolContext, path: string | undefined, staged: boolean): Promise<ToolOutput> {
  const target = path === undefined ? [] : [c.files.checkPath(path)];
  const result = await c.git.run(
    ["diff", "--no-color", "--no-ext-diff", ...(staged ? ["--cached"] : []), "--", ...target],
    {
      read: true,
      wake: true,
    },
  );
  if (result.exitCode !== 0) {
    if (isNotARepository(result)) {
      throw new AppError(ErrorCode.NOT_A_REPOSITORY, "/workspace is not a git repository (run git init first).");
    }
    throw new AppError(ErrorCode.GIT_REFUSED, result.stderr.trim().slice(0, 2000));
  }
  if (result.stdout === "") return "No differences.";
  if (result.stdout.length <= DIFF_MAX_CHARS) return result.stdout;
  return [
    result.stdout.slice(0, DIFF_MAX_CHARS),
    `[diff truncated: the first ${DIFF_MAX_CHARS} of ${result.stdout.length} characters shown; ask for one path at a time]`,
  ];
}
