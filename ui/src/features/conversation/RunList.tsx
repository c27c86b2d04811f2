// The shown session's runs as a scrolling list: only the runs on screen are rendered (a long
// session stays smooth), it follows the newest run while the person is at the bottom, and
// older runs load when they scroll near the top (or click), keeping the run they were reading
// where it was on screen. A run asked for (a search hit's) is brought into view and marked,
// older pages read until it is found.
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { Api } from "../../api";
import { useT } from "../../i18n";
import type { Run, RunPage } from "../../types";

/** Scrolled this close to the top of the run list, older runs load. */
const OLDER_THRESHOLD_PX = 200;
/** Within this of the bottom, the list follows new output. */
const AT_BOTTOM_PX = 80;
/** How long a revealed run stays marked. */
const MARK_MS = 2500;

interface Props {
  api: Api;
  sessionId: string;
  runs: Run[];
  /** Where the next older page starts; `null` when there is none. */
  cursor: string | null;
  /** How much text the newest run has streamed so far: the list follows it while at the bottom. */
  liveTail: number;
  addOlder: (page: RunPage) => void;
  report: (e: unknown) => void;
  /** Shown in place of the runs when the session has none yet. */
  empty: ReactNode;
  renderRun: (run: Run) => ReactNode;
  /** A run to bring into view and mark (`null`: none); `onRevealed` once it is, or is not
   * among the session's runs at all. */
  reveal?: string | null;
  onRevealed?: () => void;
}

export function RunList({ api, sessionId, runs, cursor, liveTail, addOlder, report, empty, renderRun, reveal = null, onRevealed }: Props) {
  const t = useT();
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: runs.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 220,
    overscan: 4,
    getItemKey: (i) => runs[i]?.id ?? i,
  });
  const atBottom = useRef(true);
  const last = runs[runs.length - 1];
  // A card waits from its approval_requested on, which can come a moment before the run's
  // status says so.
  const cardWaits = last?.status === "awaiting_approval" || !!last?.steps.some((s) => s.toolCalls.some((c) => c.approval?.state === "pending"));
  useEffect(() => {
    // The card has placed itself by now (a child's effect runs first). A follow still in flight
    // would undo that: the virtualizer keeps re-aiming at the list's end for a while as sizes
    // settle, so it is given "stay here" instead.
    const el = scroller.current;
    if (cardWaits && el) virtual.scrollToOffset(el.scrollTop);
  }, [cardWaits, virtual]);
  useEffect(() => {
    // A card that waits places itself (its title first when it is taller than the list): the
    // list's end would show its buttons and hide what is asked.
    if (cardWaits) return;
    if (atBottom.current && runs.length) virtual.scrollToIndex(runs.length - 1, { align: "end" });
  }, [runs.length, liveTail, cardWaits, virtual]);

  const list = useRef<HTMLDivElement>(null);
  const loadingOlder = useRef(false);
  const anchor = useRef<{ id: string; y: number } | null>(null);
  const loadOlder = async () => {
    const el = scroller.current;
    if (!cursor || loadingOlder.current || !el) return;
    loadingOlder.current = true;
    const top = el.getBoundingClientRect().top;
    const shown = [...el.querySelectorAll<HTMLElement>("[data-run-id]")].find((n) => n.getBoundingClientRect().bottom > top);
    anchor.current = shown ? { id: shown.dataset.runId!, y: shown.getBoundingClientRect().top - top } : null;
    try {
      addOlder(await api.runs(sessionId, cursor));
    } catch (e) {
      anchor.current = null;
      report(e);
    } finally {
      loadingOlder.current = false;
    }
  };
  const [marked, setMarked] = useState<string | null>(null);
  useEffect(() => {
    if (!reveal) return;
    const i = runs.findIndex((r) => r.id === reveal);
    if (i >= 0) {
      atBottom.current = false;
      virtual.scrollToIndex(i, { align: "start" });
      setMarked(reveal);
      onRevealed?.();
    } else if (cursor) {
      void loadOlder();
    } else {
      onRevealed?.();
    }
    // loadOlder and onRevealed are new each render; the runs and the cursor say when to look again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [reveal, runs, cursor, virtual]);
  useEffect(() => {
    if (!marked) return;
    const timer = setTimeout(() => setMarked(null), MARK_MS);
    return () => clearTimeout(timer);
  }, [marked]);

  useLayoutEffect(() => {
    const a = anchor.current;
    const el = scroller.current;
    if (!a || !el || !list.current) return;
    anchor.current = null;
    const i = runs.findIndex((r) => r.id === a.id);
    const offset = i < 0 ? undefined : virtual.getOffsetForIndex(i, "start")?.[0];
    if (offset !== undefined) el.scrollTop = list.current.offsetTop + offset - a.y;
  }, [runs, virtual]);

  return (
    <div
      className="runs"
      ref={scroller}
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < AT_BOTTOM_PX;
        if (el.scrollTop < OLDER_THRESHOLD_PX && cursor) void loadOlder();
      }}
    >
      {empty}
      {cursor && (
        <button className="link older" onClick={() => void loadOlder()}>
          {t("loadOlder")}
        </button>
      )}
      <div ref={list} style={{ height: virtual.getTotalSize(), position: "relative" }}>
        {virtual.getVirtualItems().map((item) => (
          <div key={item.key} data-index={item.index} ref={virtual.measureElement} className={runs[item.index]?.id === marked ? "run-slot found" : "run-slot"} style={{ transform: `translateY(${item.start}px)` }}>
            {renderRun(runs[item.index]!)}
          </div>
        ))}
      </div>
    </div>
  );
}
