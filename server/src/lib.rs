//! The PalmaPlan server as a library, so that `main` is flags plus glue and the
//! integration tests in `tests/` can start a real server on a loopback port.
//! Today: storage (the journal, ranks, optimistic writes). The MCP tools, roles and
//! tokens, and the HTTP routes build on it.

pub mod auth;
pub mod planning;
pub mod storage;
