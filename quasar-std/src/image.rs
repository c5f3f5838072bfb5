//! Image files: `imread` and `imwrite` (being built).
