//! The integration tests live in `tests/`; this library is empty on purpose so that they build as one crate.
