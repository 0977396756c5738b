//! End-to-end tests of the `txanon` binary: exit codes, messages, and files left behind.

mod cli;
mod publication;
mod readme;
mod trust;
