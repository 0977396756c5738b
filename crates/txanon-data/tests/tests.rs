//! Integration tests of txanon-data: one binary, one module per concern.

mod common;
mod examples;
mod malformed;
mod quest;
mod real_data;
mod roundtrip;
