//! No code: this crate only depends, so that every cargo command of the workspace resolves the
//! same features for each dependency and compiles it once (see its Cargo.toml).
