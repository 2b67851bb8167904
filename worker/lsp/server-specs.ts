/**
 * How each language's server is started and what it is told: its command
 * line, initialization options, and the answers to its
 * `workspace/configuration` requests.
 */
import type { LanguageServerId } from "../../protocol/language-servers";
import { LANGUAGE_SERVERS_DIR, WORKSPACE_ROOT } from "../sandbox/environment";

const BIN = `${LANGUAGE_SERVERS_DIR}/node_modules/.bin`;

/** What a server's settings may depend on, found when it starts. */
export interface ServerContext {
  /** The Python interpreter: the workspace's virtualenv when it has one. */
  python: string;
}

export interface ServerSpec {
  id: LanguageServerId;
  /** For messages and logs: "TypeScript". */
  name: string;
  argv: readonly string[];
  /** Merged over the page's own initializationOptions. */
  initializationOptions: Record<string, unknown>;
  /** The answer to `workspace/configuration` for one section (null: the server's defaults). */
  settings(section: string | undefined, context: ServerContext): unknown;
}

/**
 * Finds the interpreter for Python's server: a virtualenv in the workspace
 * (`.venv`, `venv`), else `python3` on the PATH. One line on stdout.
 */
export const FIND_PYTHON = `for p in ${WORKSPACE_ROOT}/.venv/bin/python ${WORKSPACE_ROOT}/venv/bin/python; do
  if [ -x "$p" ]; then echo "$p"; exit 0; fi
done
command -v python3 || echo python3`;

const formatter = { provideFormatter: true };

export const SERVER_SPECS: Record<LanguageServerId, ServerSpec> = {
  typescript: {
    id: "typescript",
    name: "TypeScript",
    // It uses the project's own node_modules/typescript when there is one,
    // else the one installed beside it in the image. One tsserver, not a
    // syntax server beside it: on a small instance a second process slows
    // the project's loading, and its early answers are partial (a definition
    // landing on the import). No automatic typings (downloads into the
    // container): the project's own node_modules types are used.
    argv: [`${BIN}/typescript-language-server`, "--stdio"],
    initializationOptions: {
      hostInfo: "cloud-ide",
      disableAutomaticTypingAcquisition: true,
      tsserver: { useSyntaxServer: "never" },
    },
    settings: () => null,
  },
  python: {
    id: "python",
    name: "Python",
    argv: [`${BIN}/basedpyright-langserver`, "--stdio"],
    initializationOptions: {},
    settings: (section, { python }) => {
      // "standard" reports real errors (an undefined name, a wrong type)
      // without basedpyright's stricter defaults flagging every untyped value.
      const analysis = {
        typeCheckingMode: "standard",
        diagnosticMode: "openFilesOnly",
        autoSearchPaths: true,
        useLibraryCodeForTypes: true,
      };
      if (section === "python") return { pythonPath: python, analysis };
      if (section === "basedpyright" || section === "pyright") return { analysis };
      if (section === "basedpyright.analysis" || section === "python.analysis") return analysis;
      return null;
    },
  },
  css: {
    id: "css",
    name: "CSS",
    argv: [`${BIN}/vscode-css-language-server`, "--stdio"],
    initializationOptions: formatter,
    settings: (section) => (section === "css" || section === "scss" || section === "less" ? { validate: true } : null),
  },
  html: {
    id: "html",
    name: "HTML",
    argv: [`${BIN}/vscode-html-language-server`, "--stdio"],
    initializationOptions: { ...formatter, embeddedLanguages: { css: true, javascript: true } },
    settings: (section) => {
      if (section === "html") return { validate: { scripts: true, styles: true }, format: { enable: true } };
      if (section === "css" || section === "javascript") return { validate: true };
      return null;
    },
  },
  json: {
    id: "json",
    name: "JSON",
    argv: [`${BIN}/vscode-json-language-server`, "--stdio"],
    // Schemas from the workspace only: a sandbox may have no Internet.
    initializationOptions: { ...formatter, handledSchemaProtocols: ["file"] },
    settings: () => null,
  },
};
