// A search's answer in place of the session list: each session found with where the text was
// found (its title, a message, an answer), the words around it with the match marked.
import { useT } from "../../i18n";
import type { SearchHit, SearchResults } from "../../types";
import { findFolded } from "./useSessionSearch";

interface Props {
  query: string;
  results: SearchResults | null;
  error: string | null;
  currentId: string | null;
  onOpen: (hit: SearchHit) => void;
}

export function SearchHits({ query, results, error, currentId, onOpen }: Props) {
  const t = useT();
  const status = error
    ? error
    : !results
      ? t("searching")
      : results.hits.length === 0
        ? t("searchNone")
        : results.truncated
          ? t("sessionSearchTruncated", { n: results.hits.length })
          : t("searchFound", { n: results.hits.length });
  return (
    <>
      <p className={error ? "small error" : "small muted"} role="status">
        {status}
      </p>
      {results && results.hits.length > 0 && (
        <ul className="list search-hits" aria-label={t("searchResultsLabel")}>
          {results.hits.map((h) => (
            <li key={h.sessionId}>
              <button className={h.sessionId === currentId ? "item hit selected" : "item hit"} aria-current={h.sessionId === currentId} onClick={() => onOpen(h)}>
                <span className="item-title">{h.title}</span>
                <span className="hit-field">{t(`searchIn_${h.field}`)}</span>
                <span className="hit-snippet">
                  <Marked text={h.snippet} query={query} />
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function Marked({ text, query }: { text: string; query: string }) {
  const at = findFolded(text, query.trim());
  if (!at) return <>{text}</>;
  const [s, e] = at;
  return (
    <>
      {text.slice(0, s)}
      <mark>{text.slice(s, e)}</mark>
      {text.slice(e)}
    </>
  );
}
