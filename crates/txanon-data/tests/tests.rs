//! Integration tests of txanon-data.
