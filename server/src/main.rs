//! The `palmaplan` binary. Until the server lands (storage, journal, MCP tools), it says
//! what it is and which version, and refuses the commands it does not have yet rather
//! than pretending to serve.

use std::process::ExitCode;

fn main() -> ExitCode {
    let version = env!("CARGO_PKG_VERSION");
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("--version" | "-V" | "version") => {
            println!("palmaplan {version}");
            ExitCode::SUCCESS
        }
        Some("--help" | "-h" | "help") => {
            println!("palmaplan {version}: the PalmaPlan planning server.");
            println!(
                "This build has the planning model only; `serve` and `stdio` come with the server."
            );
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!(
                "palmaplan {version}: « {other} » is not available in this build (the server is not built yet); try --help."
            );
            ExitCode::from(2)
        }
    }
}
