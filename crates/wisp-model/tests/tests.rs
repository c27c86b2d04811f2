//! Integration tests of wisp-model: the decoder on byte fixtures, and the client against the
//! real simulator over real HTTP.

mod adapter;
mod decode;
