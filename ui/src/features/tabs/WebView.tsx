// What a web tab shows (WEB-05): its URL, load state and last error, a notice when its
// page moved itself somewhere more private than what was opened in it (the agent may then
// neither read it nor act on it) or when a download from it was blocked, then either a
// sandboxed iframe of the page (web-only Host: `--web-only`, or no browser found) or the live
// view of the Host's browser page, a click on which brings the real window to the front. Back,
// forward and reload move a page of the Host's browser in its own history; a framed page can
// only be loaded again (its history is the iframe's, across origins).
import { useEffect, useRef, useState } from "react";
import { ArrowLeft, ArrowRight, ExternalLink, RotateCw } from "lucide-react";
import type { Api } from "../../api";
import type { NavigateTab, PreviewTab, WebTabs } from "../../types";
import { useT } from "../../i18n";
import { Reveal, revealText } from "../../components/Reveal";

type LiveApi = Pick<Api, "tabScreen" | "frontTab">;

/** The live view is refreshed at most this often (2 per second) while it is on screen. */
export const LIVE_VIEW_INTERVAL_MS = 500;
/** The panel sizes the Host fits a headless page to (GET /api/tabs/{id}/screen's `width` and
 * `height`); a test keeps them equal to the API document's. */
export const VIEW_LIMITS = { minWidth: 320, maxWidth: 1024, minHeight: 200, maxHeight: 768 } as const;

/** The page size that shows the page at one frame pixel per CSS pixel in an area of `width` ×
 * `height`: the area itself, within what the Host accepts (a smaller area scales the frame
 * down, a larger one shows it at its own size). */
export function viewFor(width: number, height: number): { width: number; height: number } {
  const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.floor(v)));
  return { width: clamp(width, VIEW_LIMITS.minWidth, VIEW_LIMITS.maxWidth), height: clamp(height, VIEW_LIMITS.minHeight, VIEW_LIMITS.maxHeight) };
}

/** A framed page that has not loaded by then is reported as not loaded. */
export const FRAME_LOAD_TIMEOUT_MS = 15_000;

/**
 * The iframe's sandbox. Scripts and the page's own origin (its cookies and storage: logins and
 * most sites need them) and forms are allowed; top navigation, popups, modals, downloads and
 * pointer lock are not, so a page can neither navigate nor cover the workbench. Allowing
 * scripts together with same-origin would let a page of the UI's own origin lift the sandbox:
 * the Host sends `frame-ancestors 'none'` on all its pages, and the UI refuses to frame its own
 * origin besides.
 */
export const FRAME_SANDBOX = "allow-scripts allow-same-origin allow-forms";

export function WebView({ api, tab, mode, onNavigate }: { api: LiveApi; tab: PreviewTab; mode: WebTabs; onNavigate?: (to: NavigateTab) => void }) {
  const t = useT();
  const url = tab.url ?? "";
  // A framed page loads again as a new iframe.
  const [framed, setFramed] = useState(0);
  const step = (to: NavigateTab, key: "webBack" | "webForward" | "webReload", Icon: typeof ArrowLeft) => (
    <button className="icon" aria-label={t(key)} title={t(key)} onClick={() => (mode === "iframe" ? setFramed((n) => n + 1) : onNavigate?.(to))}>
      <Icon size={14} aria-hidden />
    </button>
  );
  return (
    <div className="web-tab">
      <div className="web-meta">
        {mode !== "iframe" && onNavigate && step({ to: "back" }, "webBack", ArrowLeft)}
        {mode !== "iframe" && onNavigate && step({ to: "forward" }, "webForward", ArrowRight)}
        {(mode === "iframe" || onNavigate) && step({ to: "reload" }, "webReload", RotateCw)}
        <span className="mono small web-url" title={revealText(url)}>
          <Reveal text={url} />
        </span>
        {tab.loadState && <span className={`badge load-${tab.loadState}`}>{t(`tabLoad_${tab.loadState}`)}</span>}
        <a className="icon" href={url} target="_blank" rel="noopener noreferrer" aria-label={t("tabOpenOutside")} title={t("tabOpenOutside")}>
          <ExternalLink size={14} aria-hidden />
        </a>
      </div>
      {tab.error && (
        <p className="error small" role="alert">
          {t("tabLastError", { error: tab.error })}
        </p>
      )}
      {tab.moved && (
        <p className="web-notice small" role="alert">
          {t("tabMoved", { now: t(`addressWhere_${tab.moved.addressKind}`), opened: t(`addressWhere_${tab.moved.openedKind}`) })}
        </p>
      )}
      {tab.blockedDownloads && (
        <p className="web-notice small" role="status">
          {tab.blockedDownloads.count === 1
            ? t("tabBlockedDownload", { name: revealText(tab.blockedDownloads.lastFileName) })
            : t("tabBlockedDownloads", { count: String(tab.blockedDownloads.count), name: revealText(tab.blockedDownloads.lastFileName) })}
        </p>
      )}
      {mode === "iframe" ? <FramedPage key={`${tab.tabId} ${url} ${framed}`} tab={tab} /> : <LiveView api={api} tab={tab} />}
    </div>
  );
}

/** Whether a URL is of the UI's own origin: never framed (see FRAME_SANDBOX). */
export function ownOrigin(url: string, here: string = window.location.origin): boolean {
  try {
    return new URL(url).origin === here;
  } catch {
    return true;
  }
}

function FramedPage({ tab }: { tab: PreviewTab }) {
  const t = useT();
  const url = tab.url ?? "";
  const [loaded, setLoaded] = useState(false);
  const [late, setLate] = useState(false);
  useEffect(() => {
    const h = setTimeout(() => setLate(true), FRAME_LOAD_TIMEOUT_MS);
    return () => clearTimeout(h);
  }, []);
  if (ownOrigin(url))
    return (
      <p className="error" role="alert">
        {t("tabFrameOwn")}
      </p>
    );
  return (
    <>
      {/* A site that refuses framing (X-Frame-Options, frame-ancestors) still fires `load`
          with the browser's error page inside, which the UI cannot read across origins: the
          note says so, and the page can be opened outside. */}
      <p className="muted small">{t("tabFramed")}</p>
      {late && !loaded && (
        <p className="error small" role="alert">
          {t("tabFrameNotLoaded")}
        </p>
      )}
      <iframe className="web-frame" src={url} title={tab.title} sandbox={FRAME_SANDBOX} referrerPolicy="no-referrer" onLoad={() => setLoaded(true)} />
    </>
  );
}

/** The latest screencast frame of a native tab, refreshed while it is visible; a click brings
 * the browser window to the front. */
export function LiveView({ api, tab }: { api: LiveApi; tab: PreviewTab }) {
  const t = useT();
  const [src, setSrc] = useState<string | null>(null);
  const [none, setNone] = useState(false);
  const [frontError, setFrontError] = useState<string | null>(null);
  const srcRef = useRef<string | null>(null);
  // The area the view has: the page is laid out for it, so it reads as it would there.
  const area = useRef<HTMLDivElement>(null);
  const view = useRef<{ width: number; height: number } | undefined>(undefined);
  useEffect(() => {
    const el = area.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const measure = () => {
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.height > 0) view.current = viewFor(box.width, box.height);
    };
    const watch = new ResizeObserver(measure);
    watch.observe(el);
    measure();
    return () => watch.disconnect();
  }, []);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = new AbortController();
    const show = (next: string | null) => {
      if (srcRef.current) URL.revokeObjectURL(srcRef.current);
      srcRef.current = next;
      setSrc(next);
    };
    const tick = async () => {
      if (stopped) return;
      // A hidden window asks for nothing; the next tick looks again.
      if (document.visibilityState !== "hidden") {
        try {
          const blob = await api.tabScreen(tab.tabId, view.current, stop.signal);
          if (stopped) return;
          if (blob) {
            show(URL.createObjectURL(blob));
            setNone(false);
          } else {
            show(null);
            setNone(true);
          }
        } catch {
          if (stopped) return;
          show(null);
          setNone(true);
        }
      }
      if (!stopped) timer = setTimeout(() => void tick(), LIVE_VIEW_INTERVAL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      stop.abort();
      clearTimeout(timer);
      show(null);
    };
  }, [api, tab.tabId]);
  const front = () => {
    setFrontError(null);
    api.frontTab(tab.tabId).catch((e: unknown) => setFrontError(e instanceof Error ? e.message : String(e)));
  };
  return (
    <>
      {frontError && (
        <p className="error small" role="alert">
          {t("tabFrontFailed", { error: frontError })}
        </p>
      )}
      <div className="live-area" ref={area}>
        {src ? (
          <button className="live-view" onClick={front} aria-label={t("tabLiveView")} title={t("tabLiveView")}>
            <img src={src} alt={t("tabLiveViewAlt", { title: tab.title })} />
          </button>
        ) : (
          <div className="live-none">
            <p className="muted">{none ? t("tabNoFrame") : "…"}</p>
            <button onClick={front}>{t("tabFront")}</button>
          </div>
        )}
      </div>
    </>
  );
}
