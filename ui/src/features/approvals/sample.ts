// The canonical text of in-memory sample arguments (the QA page, unit tests), written the way
// the Host writes plain values: keys sorted, no spaces. Only for samples: a card of a real call
// shows the Host's own text, which this never replaces.
export function sampleCanonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sampleCanonical).join(",")}]`;
  if (typeof v === "object" && v !== null) {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${sampleCanonical(x)}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}
