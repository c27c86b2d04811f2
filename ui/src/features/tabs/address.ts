// What the address box makes of what a person types, the way a browser's address bar does: an
// address without a scheme gets one — `http://` for this computer and bare names of the local
// network (where plain HTTP is the rule: `127.0.0.1:43299/site`, `localhost:3000`,
// `intranet/wiki`), `https://` for everything else — and the panel says which it added. What is
// still no web address after that is refused here, with the reason, before the Host is asked.

export type Address = { url: string; added: "http://" | "https://" | null } | { error: "empty" | "invalid" };

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The host part of an address typed without a scheme: up to the first `/`, `?` or `#`. */
function hostOf(typed: string): string {
  const end = typed.search(/[/?#]/);
  const authority = end < 0 ? typed : typed.slice(0, end);
  const at = authority.lastIndexOf("@");
  return authority.slice(at + 1);
}

/** Whether a host (with its port) is this computer or a bare local-network name. */
function isLocal(host: string): boolean {
  const name = (host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.replace(/:\d*$/, "")).toLowerCase();
  if (name === "localhost" || name.endsWith(".localhost") || name === "[::1]") return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)) return true;
  // A name without a dot (not an IP) is a machine of the local network, as browsers read it.
  return /^[a-z0-9-]+$/i.test(name) && !/^\d+$/.test(name);
}

export function addressOf(input: string): Address {
  const typed = input.trim();
  if (!typed) return { error: "empty" };
  // `localhost:3000` parses as scheme "localhost:": only a scheme followed by "//" (or a known
  // one-part scheme) is a scheme the person typed.
  const hasScheme = SCHEME.test(typed) && (/^[a-z][a-z0-9+.-]*:\/\//i.test(typed) || /^(about|data|file|javascript|mailto|blob):/i.test(typed));
  let added: "http://" | "https://" | null = null;
  let candidate = typed;
  if (!hasScheme) {
    if (/\s/.test(typed) || typed.startsWith("/")) return { error: "invalid" };
    added = isLocal(hostOf(typed)) ? "http://" : "https://";
    candidate = added + typed;
  }
  let parsed: URL;
  try {
    parsed = new URL(candidate);
  } catch {
    return { error: "invalid" };
  }
  // Only web pages: the Host refuses other schemes too, but the box says so at once.
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return { error: "invalid" };
  if (!parsed.hostname) return { error: "invalid" };
  return { url: added ? candidate : typed, added };
}
