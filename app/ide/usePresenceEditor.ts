/**
 * The editor's side of presence (app/collab/presence.ts): what it shows goes
 * to the room, and while the page follows someone, it shows what they show.
 */
import { ViewPlugin } from "@codemirror/view";
import { useEffect } from "react";
import { KEEPS_FOLLOWING } from "../collab/PresenceAvatars";
import type { PresenceRoom } from "../collab/presence";
import { reportTopLine, scrollToLine } from "../collab/scroll-line";
import type { EditorModel } from "../editor/editor-model";

/** Publishes the editor's open files, the active one and its first visible line to the room. */
export function usePublishEditor(room: PresenceRoom | undefined, editor: EditorModel): void {
  useEffect(() => {
    if (!room) return;
    const publish = () => {
      const { buffers, active } = editor.getSnapshot();
      room.setFiles(
        buffers.map((buffer) => buffer.path),
        active,
      );
    };
    publish();
    const unsubscribe = editor.subscribe(publish);
    const removeExtension = editor.addExtensions((path) => reportTopLine((line) => room.setLine(path, line)));
    return () => {
      unsubscribe();
      removeExtension();
    };
  }, [room, editor]);
}

/**
 * While the page follows someone, the editor shows their file at their line,
 * and keeps doing so as they move, until this person types, clicks or
 * scrolls themselves.
 */
export function useFollow(room: PresenceRoom | undefined, editor: EditorModel): void {
  useEffect(() => {
    if (!room) return;
    let shown: { id: string; path: string; line: number | undefined } | undefined;
    /** A line to scroll to once the view shows its file (the view may mount only after the file opened). */
    let pending: { path: string; line: number } | undefined;
    let opening = 0;
    const move = async () => {
      const person = room.getSnapshot().following;
      if (!person?.active) {
        if (!person) shown = pending = undefined;
        return;
      }
      const path = person.active;
      if (shown && shown.id === person.id && shown.path === path && shown.line === person.line) return;
      shown = { id: person.id, path, line: person.line };
      pending = person.line === undefined ? undefined : { path, line: person.line };
      const attempt = ++opening;
      await editor.open(path).catch(() => undefined);
      // Something newer came meanwhile: it moves the editor instead.
      if (attempt !== opening || room.getSnapshot().following?.id !== person.id) return;
      const view = editor.viewOf(path);
      if (view && pending?.path === path) {
        scrollToLine(view, pending.line);
        pending = undefined;
      }
    };
    const unsubscribe = room.subscribe(() => void move());
    const removeExtension = editor.addExtensions((path) =>
      ViewPlugin.define((view) => {
        // Not inside the view's own update: a tick later.
        const timer = setTimeout(() => {
          if (pending?.path !== path || !view.dom.isConnected) return;
          scrollToLine(view, pending.line);
          pending = undefined;
        });
        return { destroy: () => clearTimeout(timer) };
      }),
    );
    return () => {
      unsubscribe();
      removeExtension();
    };
  }, [room, editor]);

  // Your own typing, clicking or scrolling ends following (a scroll the follow itself makes fires none of these).
  useEffect(() => {
    if (!room) return;
    const moved = (event: Event) => {
      if (!room.getSnapshot().following) return;
      if (event.target instanceof Element && event.target.closest(`[${KEEPS_FOLLOWING}]`)) return;
      room.stopFollowing("You moved");
    };
    const events = ["keydown", "pointerdown", "wheel", "touchmove"] as const;
    for (const type of events) document.addEventListener(type, moved, { capture: true, passive: true });
    return () => {
      for (const type of events) document.removeEventListener(type, moved, { capture: true });
    };
  }, [room]);
}
