//! The binary's limits, named in one place.

/// Shortest `WISP_TOKEN` accepted (the random token is 64 hex characters, 256 bits).
pub(crate) const MIN_TOKEN_CHARS: usize = 32;

/// Fewest different characters a `WISP_TOKEN` must use: 32 copies of one letter, or a few
/// letters in turn, is a token anyone can guess. Random hex of 32 characters uses about 14 of
/// its 16; the chance that it uses fewer than 8 is below one in a million.
pub(crate) const MIN_TOKEN_DISTINCT_CHARS: usize = 8;
