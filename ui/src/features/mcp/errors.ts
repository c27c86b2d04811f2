// The Host's refusals worded for the person, next to what failed: a missing secret store in the
// page's language (the page then offers the session-only choice), anything else as the Host's
// own specific sentence.
import type { T } from "../../i18n";

export function errorText(t: T, e: unknown): string {
  const code = (e as { code?: string }).code;
  // The model page's wording speaks of "the key"; here it is a server's variables.
  if (code === "secret_store_unavailable") return t("mcpStoreUnavailable");
  return e instanceof Error ? e.message : String(e);
}
