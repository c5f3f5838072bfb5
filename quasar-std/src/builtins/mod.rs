//! Host built-ins over arrays (being built).
