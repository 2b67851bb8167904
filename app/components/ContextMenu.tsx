import { useEffect } from "react";

export interface MenuItem {
  label: string;
  testId: string;
  run: () => void;
}

/** A menu at the pointer; any click elsewhere or leaving the window closes it. */
export function ContextMenu({
  x,
  y,
  items,
  onClose,
}: {
  x: number;
  y: number;
  items: MenuItem[];
  onClose: () => void;
}) {
  useEffect(() => {
    const close = () => onClose();
    window.addEventListener("click", close);
    window.addEventListener("blur", close);
    return () => {
      window.removeEventListener("click", close);
      window.removeEventListener("blur", close);
    };
  }, [onClose]);
  return (
    <div className="context-menu" role="menu" style={{ left: x, top: y }} data-testid="tree-menu">
      {items.map((item) => (
        <button
          type="button"
          role="menuitem"
          key={item.label}
          data-testid={item.testId}
          onClick={(e) => {
            e.stopPropagation();
            onClose();
            item.run();
          }}
        >
          {item.label}
        </button>
      ))}
    </div>
  );
}

/** Starts a download of a URL of the IDE (an attachment). */
export function download(url: string): void {
  const a = document.createElement("a");
  a.href = url;
  a.download = "";
  document.body.append(a);
  a.click();
  a.remove();
}
