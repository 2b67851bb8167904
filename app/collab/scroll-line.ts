/**
 * The editor's scroll position as a line: what a page publishes to those
 * following it ("my first visible line is 120"), and how a follower scrolls
 * there. Lines, not pixels: two people's windows differ in size.
 */
import type { Extension } from "@codemirror/state";
import { EditorView, ViewPlugin } from "@codemirror/view";

/** How often at most a scrolling view reports its line. */
const REPORT_EVERY_MS = 100;

/** The first line (1-based) whose top part shows at the top of the view. */
export function topLine(view: EditorView): number {
  const top = view.scrollDOM.getBoundingClientRect().top;
  // One pixel down: a line scrolled to exactly the top edge is that line, not the one above.
  const block = view.lineBlockAtHeight(Math.max(0, top - view.documentTop + 1));
  return view.state.doc.lineAt(block.from).number;
}

/** Scrolls the view so that `line` is its first line (clamped into the document); the cursor stays. */
export function scrollToLine(view: EditorView, line: number): void {
  const { doc } = view.state;
  const target = doc.line(Math.max(1, Math.min(doc.lines, Math.floor(line))));
  view.dispatch({ effects: EditorView.scrollIntoView(target.from, { y: "start", yMargin: 0 }) });
}

/** Reports the view's first visible line when it shows the buffer and as it scrolls. */
export function reportTopLine(report: (line: number) => void): Extension {
  return ViewPlugin.define((view) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let last = 0;
    const measure = () => {
      timer = undefined;
      // A destroyed or hidden view has nothing to say.
      if (!view.dom.isConnected) return;
      const line = topLine(view);
      if (line === last) return;
      last = line;
      report(line);
    };
    const onScroll = () => {
      timer ??= setTimeout(measure, REPORT_EVERY_MS);
    };
    view.scrollDOM.addEventListener("scroll", onScroll, { passive: true });
    onScroll();
    return {
      destroy() {
        view.scrollDOM.removeEventListener("scroll", onScroll);
        if (timer) clearTimeout(timer);
      },
    };
  });
}
