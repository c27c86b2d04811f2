// Searching sessions from the sidebar: the Host is asked once typing pauses, only the newest
// query's answer is shown, the match is marked in the words around it, a hit opens its
// session, Escape clears the search; pinning names what it does.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, renderHook, screen, waitFor, within } from "@testing-library/react";
import { I18n, translator } from "../../i18n";
import type { Api } from "../../api";
import type { SearchHit, SearchResults, Session } from "../../types";
import { SessionList } from "./SessionList";
import { findFolded, SEARCH_PAUSE_MS, useSessionSearch } from "./useSessionSearch";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const hit = (sessionId: string, snippet: string, field: SearchHit["field"] = "message"): SearchHit => ({
  sessionId,
  title: `Title ${sessionId}`,
  runId: field === "title" ? null : `r_${sessionId}`,
  field,
  snippet,
  at: 1,
});

describe("findFolded", () => {
  it("finds the text ignoring case and gives offsets into the original", () => {
    expect(findFolded("in der Straße x", "STRASSE")).toBeNull();
    expect(findFolded("in der Straße x", "straße")).toEqual([7, 13]);
    // 'İ' lower-cases to two code units: the match after it still lands on "abc".
    const hay = "İİ abc";
    const [s, e] = findFolded(hay, "ABC")!;
    expect(hay.slice(s, e)).toBe("abc");
    expect(findFolded("配置文件", "置文")).toEqual([1, 3]);
    expect(findFolded("a😀b", "B")).toEqual([3, 4]);
    expect(findFolded("abc", "")).toBeNull();
  });
});

describe("useSessionSearch", () => {
  it("asks once typing pauses and shows only the answer to the newest query", async () => {
    vi.useFakeTimers();
    const answers: Record<string, (r: SearchResults) => void> = {};
    const searchSessions = vi.fn((q: string) => new Promise<SearchResults>((resolve) => (answers[q] = resolve)));
    const api = { searchSessions } as unknown as Api;
    const { result } = renderHook(() => useSessionSearch(api, null));
    act(() => result.current.setQuery("pa"));
    act(() => result.current.setQuery("par "));
    await act(async () => vi.advanceTimersByTime(SEARCH_PAUSE_MS - 1));
    expect(searchSessions).not.toHaveBeenCalled();
    await act(async () => vi.advanceTimersByTime(1));
    // White space around the query does not count; the first, unfinished word was never asked.
    expect(searchSessions.mock.calls).toEqual([["par"]]);
    act(() => result.current.setQuery("pars"));
    await act(async () => vi.advanceTimersByTime(SEARCH_PAUSE_MS));
    await act(async () => answers["pars"]!({ hits: [hit("s2", "parser")], truncated: false }));
    await act(async () => answers["par"]!({ hits: [hit("s1", "old")], truncated: false }));
    expect(result.current.results?.hits.map((h) => h.sessionId)).toEqual(["s2"]);
    act(() => result.current.setQuery("  "));
    expect(result.current.results).toBeNull();
  });

  it("shows the Host's refusal of a query", async () => {
    const api = { searchSessions: vi.fn(async () => Promise.reject(new Error("q is longer than 200 characters"))) } as unknown as Api;
    const { result } = renderHook(() => useSessionSearch(api, null));
    act(() => result.current.setQuery("x".repeat(201)));
    await waitFor(() => expect(result.current.error).toBe("q is longer than 200 characters"));
    expect(result.current.results).toBeNull();
  });
});

function session(id: string, pinned = false): Session {
  return { id, title: `Title ${id}`, projectId: null, root: null, createdAt: 1, activeRunId: null, lastEventSeq: 0, pinned } as unknown as Session;
}

function Sidebar({ api, onOpenHit, onPin, sessions }: { api: Api; onOpenHit: (h: SearchHit) => void; onPin: (id: string, p: boolean) => void; sessions: Session[] }) {
  const search = useSessionSearch(api, sessions);
  return (
    <SessionList
      sessions={sessions}
      projects={[]}
      newIn={null}
      currentId="s1"
      waiting={new Set()}
      onSelect={() => {}}
      onNew={() => {}}
      onRename={() => {}}
      onDelete={() => {}}
      onPin={onPin}
      search={search}
      onOpenHit={onOpenHit}
    />
  );
}

describe("the sidebar's search", () => {
  it("lists the sessions found with the match marked, opens one, and clears on Escape", async () => {
    const results: SearchResults = { hits: [hit("s2", "…please Fix the PARSER now"), hit("s3", "Title s3", "title")], truncated: true };
    const api = { searchSessions: vi.fn(async () => results) } as unknown as Api;
    const onOpenHit = vi.fn();
    render(
      <I18n.Provider value={translator("en")}>
        <Sidebar api={api} onOpenHit={onOpenHit} onPin={() => {}} sessions={[session("s1"), session("s2"), session("s3")]} />
      </I18n.Provider>,
    );
    const box = screen.getByRole("searchbox", { name: "Search sessions" });
    fireEvent.change(box, { target: { value: "parser" } });
    const found = await screen.findByRole("list", { name: "Sessions found" });
    const items = within(found).getAllByRole("button");
    expect(items).toHaveLength(2);
    expect(items[0]!.querySelector("mark")?.textContent).toBe("PARSER");
    expect(items[0]!.textContent).toContain("in a message");
    expect(items[1]!.textContent).toContain("in the title");
    expect(screen.getByRole("status").textContent).toBe("More sessions hold this text; the 2 newest are shown");
    // The session list is replaced by what was found while there is a query.
    expect(screen.queryByRole("button", { name: "Title s1" })).toBeNull();
    fireEvent.click(items[0]!);
    expect(onOpenHit).toHaveBeenCalledWith(results.hits[0]);
    fireEvent.keyDown(box, { key: "Escape" });
    expect((box as HTMLInputElement).value).toBe("");
    expect(screen.queryByRole("list", { name: "Sessions found" })).toBeNull();
    expect(screen.getByRole("button", { name: "Title s1" })).toBeTruthy();
  });

  it("says when nothing was found, in Chinese too", async () => {
    const api = { searchSessions: vi.fn(async () => ({ hits: [], truncated: false })) } as unknown as Api;
    render(
      <I18n.Provider value={translator("zh")}>
        <Sidebar api={api} onOpenHit={() => {}} onPin={() => {}} sessions={[session("s1")]} />
      </I18n.Provider>,
    );
    fireEvent.change(screen.getByRole("searchbox", { name: "搜索会话" }), { target: { value: "配置" } });
    await waitFor(() => expect(screen.getByRole("status").textContent).toBe("没有会话包含这段文字。"));
  });

  it("pins the shown session, or unpins it, and marks the pinned ones", () => {
    const onPin = vi.fn();
    const api = {} as Api;
    const { rerender } = render(
      <I18n.Provider value={translator("en")}>
        <Sidebar api={api} onOpenHit={() => {}} onPin={onPin} sessions={[session("s1"), session("s2", true)]} />
      </I18n.Provider>,
    );
    expect(screen.getAllByRole("img", { name: "Pinned" })).toHaveLength(1);
    fireEvent.click(screen.getByRole("button", { name: "Pin to the top" }));
    expect(onPin).toHaveBeenLastCalledWith("s1", true);
    rerender(
      <I18n.Provider value={translator("en")}>
        <Sidebar api={api} onOpenHit={() => {}} onPin={onPin} sessions={[session("s1", true)]} />
      </I18n.Provider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Unpin" }));
    expect(onPin).toHaveBeenLastCalledWith("s1", false);
  });
});
