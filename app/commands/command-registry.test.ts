import { describe, expect, it, vi } from "vitest";
import { CommandRegistry, matches, parseKeys } from "./command-registry";

const key = (key: string, mods: Partial<Record<"ctrlKey" | "altKey" | "shiftKey" | "metaKey", boolean>> = {}) =>
  ({ key, ctrlKey: false, altKey: false, shiftKey: false, metaKey: false, ...mods }) as KeyboardEvent;

describe("command keys", () => {
  it("parses CodeMirror's notation (Mod is Ctrl off macOS)", () => {
    expect(parseKeys("Mod-Shift-Enter")).toEqual({ key: "enter", ctrl: true, alt: false, shift: true, meta: false });
    expect(parseKeys("Alt--")).toMatchObject({ key: "-", alt: true });
    expect(() => parseKeys("Hyper-x")).toThrow(/unknown modifier/);
  });

  it("matches exactly the modifiers given", () => {
    expect(matches("Mod-s", key("s", { ctrlKey: true }))).toBe(true);
    expect(matches("Mod-s", key("S", { ctrlKey: true }))).toBe(true);
    expect(matches("Mod-s", key("s", { ctrlKey: true, shiftKey: true }))).toBe(false);
    expect(matches("F2", key("F2"))).toBe(true);
  });
});

describe("the command registry", () => {
  it("lists commands by title, runs them by id or key, and forgets removed ones", () => {
    const registry = new CommandRegistry();
    const save = vi.fn();
    const removeSave = registry.register({ id: "editor.save", title: "Save file", keys: ["Mod-s"], run: save });
    registry.register({ id: "layout.maximize", title: "Maximize pane", keys: ["Mod-Shift-Enter"], run: () => {} });
    expect(registry.getSnapshot().map((c) => c.id)).toEqual(["layout.maximize", "editor.save"]);

    expect(registry.run("editor.save")).toBe(true);
    const event = { ...key("s", { ctrlKey: true }), defaultPrevented: false, preventDefault: vi.fn() };
    registry.onKeyDown(event as unknown as KeyboardEvent);
    expect(save).toHaveBeenCalledTimes(2);
    expect(event.preventDefault).toHaveBeenCalled();

    removeSave();
    expect(registry.run("editor.save")).toBe(false);
    expect(registry.getSnapshot()).toHaveLength(1);
  });

  it("leaves keys someone already handled, and does not run a disabled command", () => {
    const registry = new CommandRegistry();
    const run = vi.fn();
    let enabled = false;
    registry.register({ id: "x", title: "X", keys: ["F2"], enabled: () => enabled, run });
    registry.onKeyDown({ ...key("F2"), defaultPrevented: true, preventDefault() {} } as unknown as KeyboardEvent);
    registry.onKeyDown({ ...key("F2"), defaultPrevented: false, preventDefault() {} } as unknown as KeyboardEvent);
    expect(run).not.toHaveBeenCalled();
    enabled = true;
    registry.onKeyDown({ ...key("F2"), defaultPrevented: false, preventDefault() {} } as unknown as KeyboardEvent);
    expect(run).toHaveBeenCalledOnce();
  });
});
