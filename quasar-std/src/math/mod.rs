//! Vectorisable math routines for kernels (being built).
