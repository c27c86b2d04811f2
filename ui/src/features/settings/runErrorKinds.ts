// Every run error kind the Host can send (`RunErrorKind` in crates/wisp-protocol/src/lib.rs).
// tests/settings.rs checks this list against the enum in the Host's OpenAPI document, the
// compiler against the generated type, and ui.test.tsx that each has a wording in every
// language, so neither side can drift.
import type { Schemas } from "../../types";

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
] as const satisfies readonly Schemas["RunErrorKind"][];

export type RunErrorKind = Schemas["RunErrorKind"];

/** A kind of the wire missing from the list above fails to compile here. */
type Unlisted = Exclude<RunErrorKind, (typeof RUN_ERROR_KINDS)[number]>;
export const ALL_RUN_ERROR_KINDS_LISTED: [Unlisted] extends [never] ? true : Unlisted = true;
