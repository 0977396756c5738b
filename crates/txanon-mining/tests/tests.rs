//! Integration tests of txanon-mining: one binary, one module per concern.

mod brute;
mod examples;
mod pyfim;
mod real_data;
