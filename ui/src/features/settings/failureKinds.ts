// Every kind of failure the Host can send (`FailureKind` in crates/wisp-protocol/src/lib.rs), in
// its order. tests/settings.rs checks this list against the enum in the Host's OpenAPI document,
// the compiler against the generated type (here, and in problem.tsx, where each kind must have
// a wording key), and ui.test.tsx that each is worded in every language.
import type { Schemas } from "../../types";

export const FAILURE_KINDS = [
  "missing_key",
  "invalid_config",
  "bad_request",
  "context_too_long",
  "key_refused",
  "key_required",
  "no_balance",
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
  "empty_summary",
  "spending_limit",
  "interrupted",
  "unfinished_at_start",
  "secret_store_unavailable",
  "secret_store_failed",
  "internal",
] as const satisfies readonly Schemas["FailureKind"][];

export type FailureKind = Schemas["FailureKind"];

/** A kind of the wire missing from the list above fails to compile here. */
type Unlisted = Exclude<FailureKind, (typeof FAILURE_KINDS)[number]>;
export const ALL_FAILURE_KINDS_LISTED: [Unlisted] extends [never] ? true : Unlisted = true;
