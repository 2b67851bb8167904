import { useEffect, useMemo } from "react";
import type { WorkspaceApi } from "../api/workspace";
import { useRegisterCommands } from "../commands/useCommands";
import type { EditorModel } from "../editor/editor-model";
import { type Action, useAction } from "../hooks/useAction";
import { LanguageServices } from "./language-services";

/**
 * The page's language services for its editor, and their commands in the
 * command registry (so the palette lists them with their keys).
 */
export function useLanguageServices(
  api: WorkspaceApi,
  editor: EditorModel,
  /** Off for a viewer: a language server's socket sends it document changes, an editor's to make. */
  enabled = true,
): { services: LanguageServices; action: Action } {
  const services = useMemo(
    () => new LanguageServices({ workspaceId: api.files.workspaceId, editor, files: api.files }),
    [api, editor],
  );
  useEffect(() => (enabled ? services.start() : undefined), [services, enabled]);
  const action = useAction();
  const { run } = action;
  useRegisterCommands(() => {
    const enabled = () => services.canAct();
    return [
      {
        id: "editor.goToDefinition",
        title: "Go to definition",
        keys: ["F12"],
        enabled,
        run: () => services.goToDefinition(),
      },
      {
        id: "editor.findReferences",
        title: "Find references",
        keys: ["Shift-F12"],
        enabled,
        run: () => void run(() => services.findReferences(), "Finding references"),
      },
      {
        id: "editor.renameSymbol",
        title: "Rename symbol",
        keys: ["F2"],
        enabled,
        run: () => void run(() => services.renameSymbol(), "Renaming"),
      },
      {
        id: "editor.formatDocument",
        title: "Format document",
        keys: ["Shift-Alt-f"],
        enabled,
        run: () => services.formatDocument(),
      },
      {
        id: "view.problems",
        title: "Show problems",
        keys: ["Mod-Shift-m"],
        run: () => services.setPanel({ open: true, tab: "problems" }),
      },
    ];
  }, [services, run]);
  return { services, action };
}
