// Which keystrokes may answer an approval card. A decision by keyboard needs a
// card the person moved to on purpose — by Tab or by a click, never because something else
// focused it — and a plain, single press of A or R: no modifier, no key repeat, no IME
// composition. Everything else (typing in a text field above all) never answers a card.

export type Decision = "approve" | "reject";

interface KeyLike {
  key: string;
  repeat: boolean;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  isComposing?: boolean;
}

/** The decision a key press asks for, or null when it must not decide anything. */
export function decisionOf(e: KeyLike): Decision | null {
  if (e.repeat || e.ctrlKey || e.altKey || e.metaKey || e.shiftKey || e.isComposing) return null;
  // Upper case without Shift is Caps Lock: still the same single deliberate key.
  if (e.key === "a" || e.key === "A") return "approve";
  if (e.key === "r" || e.key === "R") return "reject";
  return null;
}

/** True for elements that take typed text: keys there are the person's text, never a decision. */
export function isTextField(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable === true || el.closest('[contenteditable]:not([contenteditable="false"])') !== null;
}

// Whether the latest key press was Tab: a focus that follows it was the person moving through
// the page. Tracked once per document, in the capture phase, before any handler can stop it.
let lastKeyWasTab = false;
const tracked = new WeakSet<Document>();

export function trackFocusIntent(doc: Document = document) {
  if (tracked.has(doc)) return;
  tracked.add(doc);
  doc.addEventListener("keydown", (e) => (lastKeyWasTab = e.key === "Tab"), true);
  doc.addEventListener("pointerdown", () => (lastKeyWasTab = false), true);
}

/** Whether a focus that happens now was reached with the Tab key. */
export const focusCameFromTab = () => lastKeyWasTab;
