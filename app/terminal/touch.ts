import type { Terminal } from "@xterm/xterm";

/** How far a finger moves before a tap becomes a swipe, and how many pixels scroll one line. */
const TAP_SLOP_PX = 10;
const LINE_PX = 18;

/**
 * What xterm.js does not do on a touch screen (its issues #1101, #5377):
 * a tap focuses the terminal, which opens the on-screen keyboard, and a
 * vertical swipe scrolls (as wheel turns, which tmux takes for its history).
 * Returns a function that removes the listeners.
 */
export function attachTouch(host: HTMLElement, terminal: Terminal): () => void {
  let startY = 0;
  let lastY = 0;
  let moved = false;
  const onStart = (event: TouchEvent) => {
    const touch = event.touches[0];
    if (!touch || event.touches.length > 1) return;
    startY = lastY = touch.clientY;
    moved = false;
  };
  const onMove = (event: TouchEvent) => {
    const touch = event.touches[0];
    if (!touch) return;
    if (Math.abs(touch.clientY - startY) > TAP_SLOP_PX) moved = true;
    const lines = Math.trunc((lastY - touch.clientY) / LINE_PX);
    if (!moved || lines === 0) return;
    lastY -= lines * LINE_PX;
    event.preventDefault();
    const target = host.querySelector(".xterm-screen") ?? host;
    target.dispatchEvent(
      new WheelEvent("wheel", { deltaY: lines * LINE_PX, deltaMode: 0, bubbles: true, cancelable: true }),
    );
  };
  const onEnd = () => {
    if (!moved) terminal.focus();
  };
  host.addEventListener("touchstart", onStart, { passive: true });
  host.addEventListener("touchmove", onMove, { passive: false });
  host.addEventListener("touchend", onEnd);
  return () => {
    host.removeEventListener("touchstart", onStart);
    host.removeEventListener("touchmove", onMove);
    host.removeEventListener("touchend", onEnd);
  };
}

/** The terminal's text (scrollback and screen), for selecting and copying on a touch screen. */
export function terminalText(terminal: Terminal, maxLines = 2000): string {
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let y = Math.max(0, buffer.length - maxLines); y < buffer.length; y++) {
    lines.push(buffer.getLine(y)?.translateToString(true) ?? "");
  }
  return lines.join("\n").trimEnd();
}
