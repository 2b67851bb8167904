import { type ReactNode, useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import "./quick-pick.css";

export interface QuickPickProps<T> {
  /** The dialog's accessible name: "Go to file". */
  label: string;
  placeholder: string;
  initialQuery?: string;
  /** The list for what is typed, computed on every keystroke. */
  items: (query: string) => readonly T[];
  itemKey: (item: T) => string;
  renderItem: (item: T) => ReactNode;
  disabled?: (item: T) => boolean;
  /** Runs after the picker has closed and given the keyboard back. */
  onPick: (item: T, query: string) => void;
  onClose: () => void;
  /** A line under the input: loading, an error, a count. */
  status?: ReactNode;
}

/**
 * A modal combobox over a listbox (WAI-ARIA 1.2): the input keeps the
 * keyboard, the arrows move the active option (aria-activedescendant), Enter
 * picks it, Escape or a click outside closes. Quick open, the command palette
 * and go to line are each one of these.
 */
export function QuickPick<T>(props: QuickPickProps<T>) {
  const { label, placeholder, items, itemKey, renderItem, disabled, onPick, onClose, status } = props;
  const [query, setQuery] = useState(props.initialQuery ?? "");
  const [active, setActive] = useState(0);
  const listId = useId();
  // Filtered once per keystroke in the event handler (not in render, which React may run twice); again
  // when `items` changes (the file list grew).
  const [filtered, setFiltered] = useState(() => ({ items, query, list: items(query) }));
  const list = filtered.items === items && filtered.query === query ? filtered.list : items(query);
  if (filtered.items !== items) setFiltered({ items, query, list });
  const listRef = useRef<HTMLDivElement>(null);
  const dialogRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  // Where the keyboard was (read before the input takes it), given back when the picker closes.
  const [returnFocus] = useState(() => document.activeElement);
  /** Set once the picker closes: from then on the keyboard may go back where it was. */
  const closing = useRef(false);

  const index = Math.min(active, list.length - 1);
  const current = index >= 0 ? list[index] : undefined;
  useLayoutEffect(() => {
    listRef.current?.children[index]?.scrollIntoView({ block: "nearest" });
  }, [index]);

  // A modal dialog keeps the keyboard while it is open: keys typed right after the shortcut belong to it. Whatever
  // takes the focus meanwhile (a file that finished opening focuses the editor; CodeMirror restores its own focus)
  // gives it back to the input, and a focus lost to nothing comes back too.
  useEffect(() => {
    const input = inputRef.current;
    if (!input) return;
    input.focus();
    const keep = (event: FocusEvent) => {
      if (closing.current || dialogRef.current?.contains(event.target as Node | null)) return;
      input.focus();
    };
    const lost = (event: FocusEvent) => {
      if (closing.current || dialogRef.current?.contains(event.relatedTarget as Node | null)) return;
      queueMicrotask(() => {
        if (!closing.current && !dialogRef.current?.contains(document.activeElement)) input.focus();
      });
    };
    document.addEventListener("focusin", keep);
    input.addEventListener("focusout", lost);
    return () => {
      document.removeEventListener("focusin", keep);
      input.removeEventListener("focusout", lost);
    };
  }, []);

  const close = () => {
    closing.current = true;
    onClose();
    if (returnFocus instanceof HTMLElement) returnFocus.focus();
  };
  const pick = (item: T | undefined) => {
    if (item === undefined || disabled?.(item)) return;
    close();
    onPick(item, query);
  };
  const move = (by: number) => {
    if (list.length === 0) return;
    setActive((((index + by) % list.length) + list.length) % list.length);
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a click outside closes, as Escape does for the keyboard
    <div
      className="quick-pick-backdrop"
      data-testid="quick-pick"
      onMouseDown={(event) => {
        if (event.target === event.currentTarget) close();
      }}
    >
      <div className="quick-pick" role="dialog" aria-modal="true" aria-label={label} ref={dialogRef}>
        <input
          ref={inputRef}
          // biome-ignore lint/a11y/noAutofocus: the picker opens because the person wants to type in it
          autoFocus
          className="quick-pick-input"
          role="combobox"
          aria-label={label}
          aria-expanded={list.length > 0}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={current === undefined ? undefined : `${listId}-${index}`}
          placeholder={placeholder}
          spellCheck={false}
          autoComplete="off"
          value={query}
          onChange={(event) => {
            const next = event.target.value;
            setQuery(next);
            setFiltered({ items, query: next, list: items(next) });
            setActive(0);
          }}
          onKeyDown={(event) => {
            if (event.nativeEvent.isComposing) return;
            if (event.key === "ArrowDown") move(1);
            else if (event.key === "ArrowUp") move(-1);
            else if (event.key === "PageDown") move(Math.min(10, list.length - 1 - index) || 1);
            else if (event.key === "PageUp") move(-Math.min(10, index) || -1);
            else if (event.key === "Enter") pick(current);
            else if (event.key === "Escape") close();
            else return;
            event.preventDefault();
            event.stopPropagation();
          }}
        />
        {status && <div className="quick-pick-status">{status}</div>}
        <div className="quick-pick-list" id={listId} role="listbox" aria-label={label} ref={listRef}>
          {list.map((item, i) => (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the input above handles the keyboard (aria-activedescendant)
            <div
              key={itemKey(item)}
              tabIndex={-1}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === index}
              aria-disabled={disabled?.(item) || undefined}
              className="quick-pick-item"
              onMouseMove={() => i !== index && setActive(i)}
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => pick(item)}
            >
              {renderItem(item)}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}
