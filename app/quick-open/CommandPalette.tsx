import fuzzysort from "fuzzysort";
import { useCallback, useSyncExternalStore } from "react";
import { type Command, type CommandRegistry, formatKeys } from "../commands/command-registry";
import { QuickPick } from "./QuickPick";
import { highlightRuns } from "./quick-open";

interface Item {
  command: Command;
  indexes: readonly number[];
}

/** Ctrl/Cmd+Shift+P (or F1): every command of the registry with its keys, fuzzy-filtered by title. */
export function CommandPalette({ registry, onClose }: { registry: CommandRegistry; onClose: () => void }) {
  const commands = useSyncExternalStore(registry.subscribe, registry.getSnapshot);
  const items = useCallback(
    (query: string): Item[] =>
      query.trim() === ""
        ? commands.map((command) => ({ command, indexes: [] }))
        : fuzzysort
            .go(query, commands, { key: "title", limit: 100, threshold: 0 })
            .map((result) => ({ command: result.obj, indexes: [...result.indexes] })),
    [commands],
  );
  return (
    <QuickPick<Item>
      label="Run a command"
      placeholder="Command name"
      items={items}
      itemKey={(item) => item.command.id}
      disabled={(item) => item.command.enabled?.() === false}
      renderItem={({ command, indexes }) => (
        <>
          <span>
            {highlightRuns(command.title, indexes).map((run) =>
              run.matched ? <mark key={run.start}>{run.text}</mark> : <span key={run.start}>{run.text}</span>,
            )}
          </span>
          {command.keys && command.keys.length > 0 && (
            <kbd className="quick-pick-keys">{command.keys.map(formatKeys).join("  or  ")}</kbd>
          )}
        </>
      )}
      onClose={onClose}
      onPick={(item) => registry.run(item.command.id)}
    />
  );
}
