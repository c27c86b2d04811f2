// Searching the sessions as the person types: the Host is asked once typing pauses, and only
// the answer to the newest query is shown (an older one arriving late is dropped). The list
// is asked again when the sessions change, so a deleted session leaves the results.
import { useEffect, useRef, useState } from "react";
import type { Api } from "../../api";
import type { SearchResults } from "../../types";

/** How long typing must pause before the Host is asked. */
export const SEARCH_PAUSE_MS = 200;

export interface SessionSearch {
  query: string;
  setQuery: (q: string) => void;
  /** The answer for the query as typed; `null` while there is no query or none yet. */
  results: SearchResults | null;
  /** The Host's refusal of the query as typed (too long, for one). */
  error: string | null;
}

export function useSessionSearch(api: Api, sessionsVersion: unknown): SessionSearch {
  const [query, setQuery] = useState("");
  const [results, setResults] = useState<SearchResults | null>(null);
  const [error, setError] = useState<string | null>(null);
  const asked = useRef(0);
  const trimmed = query.trim();
  useEffect(() => {
    const mine = ++asked.current;
    if (!trimmed) {
      setResults(null);
      setError(null);
      return;
    }
    const timer = setTimeout(() => {
      api.searchSessions(trimmed).then(
        (r) => {
          if (mine !== asked.current) return;
          setResults(r);
          setError(null);
        },
        (e: unknown) => {
          if (mine !== asked.current) return;
          setResults(null);
          setError(e instanceof Error ? e.message : String(e));
        },
      );
    }, SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [api, trimmed, sessionsVersion]);
  return { query, setQuery, results: trimmed ? results : null, error: trimmed ? error : null };
}

/** Where `needle` first occurs in `hay` ignoring case, as [start, end) of `hay` itself: a
 * letter whose lower case is longer ('İ') keeps the offsets after it right. */
export function findFolded(hay: string, needle: string): [number, number] | null {
  const want = needle.toLowerCase();
  if (!want) return null;
  let folded = "";
  const origin: number[] = [];
  for (let i = 0; i < hay.length; ) {
    const c = String.fromCodePoint(hay.codePointAt(i)!);
    const lower = c.toLowerCase();
    folded += lower;
    for (let k = 0; k < lower.length; k++) origin.push(i);
    i += c.length;
  }
  origin.push(hay.length);
  const at = folded.indexOf(want);
  if (at < 0) return null;
  const end = at + want.length;
  return [origin[at]!, end < folded.length ? origin[end]! : hay.length];
}
