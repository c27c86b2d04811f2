// Every run error kind the Host can send (`RunErrorKind` in crates/wisp-protocol/src/lib.rs).
// tests/settings.rs checks this list against the enum in the Host's OpenAPI document, and
// ui.test.tsx checks that each has a wording in every language, so neither side can drift.
export const RUN_ERROR_KINDS = [
  "missing_key",
  "invalid_config",
  "bad_request",
  "unauthorized",
  "insufficient_balance",
  "invalid_parameters",
  "rate_limited",
  "server_error",
  "server_overloaded",
  "unexpected_status",
  "model_not_offered",
  "connect",
  "tls",
  "connection_lost",
  "stream_cut",
  "idle_timeout",
  "malformed_stream",
  "event_too_large",
  "response_too_large",
  "provider_error",
  "budget_exhausted",
  "interrupted",
  "unfinished_at_start",
  "internal",
] as const;

export type RunErrorKind = (typeof RUN_ERROR_KINDS)[number];
