import { createContext, type DependencyList, useContext, useEffect, useMemo } from "react";
import { type Command, CommandRegistry } from "./command-registry";

export const CommandsContext = createContext<CommandRegistry | undefined>(undefined);

/** The page's command registry, with its keys listened to on the whole window. */
export function useCommandRegistry(): CommandRegistry {
  const registry = useMemo(() => new CommandRegistry(), []);
  useEffect(() => {
    window.addEventListener("keydown", registry.onKeyDown);
    return () => window.removeEventListener("keydown", registry.onKeyDown);
  }, [registry]);
  return registry;
}

export function useCommands(): CommandRegistry {
  const registry = useContext(CommandsContext);
  if (!registry) throw new Error("useCommands outside a CommandsContext");
  return registry;
}

/** Registers commands while the component is mounted (again when `deps` change). */
export function useRegisterCommands(make: () => Command[], deps: DependencyList): void {
  const registry = useContext(CommandsContext);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller lists what `make` depends on
  useEffect(() => {
    if (!registry) return;
    const removers = make().map((command) => registry.register(command));
    return () => {
      for (const remove of removers) remove();
    };
  }, [registry, ...deps]);
}
