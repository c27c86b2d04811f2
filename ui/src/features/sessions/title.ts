// A session's title as the person reads it. The Host names a session nobody named "New session"
// (in English: it has no language) until its first message names it; that default is shown in
// the person's language. Any other title is the person's or their first message's own words.
import type { Session } from "../../types";
import type { useT } from "../../i18n";

/** The title the Host gives a session nobody named (`DEFAULT_TITLE` in wisp-core). */
export const HOST_DEFAULT_TITLE = "New session";

export function sessionTitle(t: ReturnType<typeof useT>, session: Pick<Session, "title">): string {
  return session.title === HOST_DEFAULT_TITLE ? t("newSession") : session.title;
}
