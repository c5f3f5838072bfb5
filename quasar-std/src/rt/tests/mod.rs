//! Unit tests of the run-time support, one file per module.

mod access;
mod concat;
mod fixed;
mod index;
mod scalar;
mod show;
