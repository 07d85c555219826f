//! The PalmaPlan server as a library, so that `main` is flags plus glue and the
//! integration tests in `tests/` can start a real server on a loopback port.
//! `storage` (the only SQL), `auth` (tokens), `planning` (the tools, transport-free),
//! `mcp` (the rmcp adapter), `http` (the routes and the token check), `embed` (the
//! signed one-hour `/embed` links), `view` (the embedded view page, served as the MCP
//! Apps resource and under `/embed`), `bootstrap` (first start, users and tokens from
//! the command line), `oauth` (OAuth 2.1 for remote hosts: metadata, registration,
//! consent and tokens), `cimd` (the client metadata documents `oauth` fetches), `web` (the web screen for a signed-in person: schedule list,
//! a schedule full page, connected applications), `live` (the event streams of
//! instant updates), `utc` (the time stamps every text and answer writes).

pub mod auth;
pub mod bootstrap;
pub mod cimd;
pub mod embed;
mod help;
pub mod http;
pub mod live;
pub mod mcp;
pub mod oauth;
pub mod planning;
pub mod protocol;
pub mod storage;
pub mod utc;
pub mod view;
pub mod web;
