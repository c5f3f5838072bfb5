//! The Rust backend: typed IR → Rust tokens (host functions and CPU kernels).
