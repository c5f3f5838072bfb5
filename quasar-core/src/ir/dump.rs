//! A readable textual form of the IR, for tests and `quasar check --types`.
