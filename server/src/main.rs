//! The `palmaplan` binary: command-line flags, logs, and glue. Everything it runs lives
//! in the library (`http`, `mcp`, `bootstrap`), where the tests reach it.

use std::io::Read as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use palmaplan_model::Lang;
use palmaplan_server::auth;
use palmaplan_server::bootstrap::{self, SetupError, StdioLaunch};
use palmaplan_server::embed::Embed;
use palmaplan_server::http::{self, AppState};
use palmaplan_server::mcp::McpServer;
use palmaplan_server::planning::{Caller, Clock, Planning, SystemClock, tr};
use palmaplan_server::storage::{Store, StoreOptions};
use rmcp::ServiceExt;
use tracing_subscriber::EnvFilter;

/// PalmaPlan: team schedules kept by a server and edited by AI assistants over MCP.
#[derive(Debug, Parser)]
#[command(name = "palmaplan", version, propagate_version = true)]
struct Cli {
    #[command(flatten)]
    data: DataArgs,
    #[command(subcommand)]
    command: Command,
}

/// Where the data lives, and the language of texts.
#[derive(Debug, Args)]
struct DataArgs {
    /// Folder for the data: the SQLite database unless --database-url is given.
    #[arg(
        long,
        env = "PALMAPLAN_DATA",
        default_value = "./palmaplan-data",
        global = true
    )]
    data_dir: PathBuf,
    /// Database URL: sqlite://PATH or postgres://USER:PASSWORD@HOST/DB (default: a SQLite
    /// file in the data folder).
    #[arg(
        long,
        env = "PALMAPLAN_DATABASE_URL",
        global = true,
        hide_env_values = true
    )]
    database_url: Option<String>,
    /// Language of the texts (tools' answers, messages). A tool call can still ask for
    /// the other one with the argument "lang".
    #[arg(long, env = "PALMAPLAN_LANG", value_enum, default_value_t = LangArg::Fr, global = true)]
    lang: LangArg,
    /// Memory for the schedules' current states kept by this process, in MB (the least
    /// recently used are dropped beyond it and read again when needed).
    #[arg(
        long,
        env = "PALMAPLAN_STATE_CACHE_MB",
        default_value_t = 1024,
        global = true
    )]
    state_cache_mb: usize,
    /// SQLite durability: "normal" (a write survives a crash of the process; a power
    /// cut may lose the last ones) or "full" (it survives a power cut; slower writes).
    #[arg(long, env = "PALMAPLAN_SQLITE_SYNC", value_enum, default_value_t = SyncArg::Normal, global = true)]
    sqlite_sync: SyncArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SyncArg {
    Normal,
    Full,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum LangArg {
    Fr,
    En,
}

impl From<LangArg> for Lang {
    fn from(l: LangArg) -> Lang {
        match l {
            LangArg::Fr => Lang::Fr,
            LangArg::En => Lang::En,
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP over HTTP (/mcp) with /healthz. The first start creates an owner, their
    /// first token and the demo schedule, and prints the token with client configurations.
    Serve(ServeArgs),
    /// Serve MCP on stdin/stdout, for clients that start the server themselves.
    Stdio {
        /// The caller's token (ppt_…), as `palmaplan token create` printed it.
        #[arg(long, env = "PALMAPLAN_TOKEN", hide_env_values = true)]
        token: String,
        /// Where `palmaplan serve` on the same data is reached, for the one-hour /embed
        /// links of show_schedule (signed with the data folder's secret).
        #[arg(
            long,
            env = "PALMAPLAN_PUBLIC_URL",
            default_value = DEFAULT_PUBLIC_URL
        )]
        public_url: String,
    },
    /// Create, list or revoke a user's named tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Manage users.
    #[command(subcommand)]
    User(UserCommand),
    /// List or revoke the applications a user allowed through OAuth (remote hosts
    /// such as Claude on the web or ChatGPT).
    #[command(subcommand)]
    Grant(GrantCommand),
    /// Add a copy of the demo schedule "S/4HANA Migration" for a user.
    Demo {
        /// The user's e-mail (default: the owner created at the first start).
        #[arg(long, env = "PALMAPLAN_OWNER_EMAIL", default_value = "owner@localhost")]
        user: String,
        /// Instead of the demo, a generated schedule of this many bars (deterministic,
        /// about two links a bar): for benchmarks, such as the view's render benchmark.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=200_000))]
        synthetic_bars: Option<u32>,
    },
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "PALMAPLAN_ADDR", default_value = DEFAULT_ADDR)]
    addr: SocketAddr,
    /// A Host accepted besides loopback (host or host:port); repeat it, or give a
    /// comma-separated list in the environment; "*" accepts any (behind a proxy).
    #[arg(
        long = "allowed-host",
        env = "PALMAPLAN_ALLOWED_HOSTS",
        value_delimiter = ','
    )]
    allowed_hosts: Vec<String>,
    /// A browser Origin accepted besides loopback (https://app.example.com:443, port *
    /// for any); repeat it, or give a comma-separated list; "*" accepts any.
    #[arg(
        long = "allowed-origin",
        env = "PALMAPLAN_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    allowed_origins: Vec<String>,
    /// The address of a reverse proxy in front of this server (repeat it, or give a
    /// comma-separated list): only from it, the sign-in and registration limits count
    /// the client address in the last X-Forwarded-For entry instead of the proxy's.
    #[arg(
        long = "trusted-proxy",
        env = "PALMAPLAN_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    trusted_proxies: Vec<std::net::IpAddr>,
    /// The address people reach this server at, for the one-hour /embed links of
    /// show_schedule (e.g. https://plan.example.com behind a proxy). Default:
    /// http://ADDR.
    #[arg(long, env = "PALMAPLAN_PUBLIC_URL")]
    public_url: Option<String>,
    /// The owner's name, used at the first start.
    #[arg(long, env = "PALMAPLAN_OWNER_NAME", default_value = "Owner")]
    owner_name: String,
    /// The owner's e-mail, used at the first start.
    #[arg(long, env = "PALMAPLAN_OWNER_EMAIL", default_value = "owner@localhost")]
    owner_email: String,
}

#[derive(Debug, Subcommand)]
enum TokenCommand {
    /// Create a token; its secret is printed once, with client configurations.
    Create {
        /// The user's e-mail.
        #[arg(long)]
        user: String,
        /// A name to recognise it by ("laptop", "CI"...).
        #[arg(long)]
        label: String,
        /// Read only: the token can call no tool that changes a schedule.
        #[arg(long)]
        read_only: bool,
        /// Restrict the token to one schedule (its id).
        #[arg(long)]
        schedule: Option<i64>,
        /// The server's address, for the printed configurations. Default: the
        /// address `palmaplan serve` last served this data folder at, else
        /// 127.0.0.1:4785.
        #[arg(long, env = "PALMAPLAN_ADDR")]
        addr: Option<SocketAddr>,
    },
    /// List a user's tokens (never their secrets).
    List {
        /// The user's e-mail.
        #[arg(long)]
        user: String,
    },
    /// Revoke one of a user's tokens: it stops working at once.
    Revoke {
        /// The user's e-mail.
        #[arg(long)]
        user: String,
        /// The token's id (see `palmaplan token list`).
        id: i64,
    },
}

#[derive(Debug, Subcommand)]
enum UserCommand {
    /// Add a user.
    Add {
        /// Their name.
        #[arg(long)]
        name: String,
        /// Their e-mail (unique).
        #[arg(long)]
        email: String,
    },
    /// Set the password a user signs in with to allow an application (OAuth); read
    /// from the first line of standard input, never from the command line.
    SetPassword {
        /// Their e-mail.
        #[arg(long)]
        email: String,
    },
    /// Print a one-time sign-in link to the web screen: valid 15 minutes, opens one
    /// session once, needs no password. Give it to the person only.
    SignInLink {
        /// Their e-mail.
        #[arg(long)]
        email: String,
        /// Where `palmaplan serve` on the same data is reached (the link's address).
        #[arg(
            long,
            env = "PALMAPLAN_PUBLIC_URL",
            default_value = DEFAULT_PUBLIC_URL
        )]
        public_url: String,
    },
}

#[derive(Debug, Subcommand)]
enum GrantCommand {
    /// List a user's grants (never a secret).
    List {
        /// The user's e-mail.
        #[arg(long)]
        user: String,
    },
    /// Revoke one of a user's grants: its access and refresh tokens stop working at once.
    Revoke {
        /// The user's e-mail.
        #[arg(long)]
        user: String,
        /// The grant's id (see `palmaplan grant list`).
        id: i64,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let quiet = !matches!(cli.command, Command::Serve(_) | Command::Stdio { .. });
    init_logs(quiet);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("palmaplan: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let lang = Lang::from(cli.data.lang);
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("palmaplan: {}", message(&e, lang));
            ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr (stdout is the MCP channel of `stdio`), filtered by RUST_LOG.
fn init_logs(quiet: bool) {
    let default = if quiet {
        "warn"
    } else {
        "info,sqlx=warn,rmcp=warn"
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn message(e: &SetupError, lang: Lang) -> String {
    match e {
        SetupError::Store(e) => tr(
            lang,
            format!("la base de données a refusé\u{a0}: {e}"),
            format!("the database refused: {e}"),
        ),
        other => other.to_string(),
    }
}

async fn run(cli: Cli) -> Result<(), SetupError> {
    let lang = Lang::from(cli.data.lang);
    let store = open_store(&cli.data).await?;
    let now = SystemClock.now_ms();
    match cli.command {
        Command::Serve(args) => serve(&cli.data, store, args).await,
        Command::Stdio { token, public_url } => {
            let links = embed_links(&cli.data, &public_url, lang)?;
            stdio(store, lang, &token, links).await
        }
        Command::Token(TokenCommand::Create {
            user,
            label,
            read_only,
            schedule,
            addr,
        }) => {
            let user = bootstrap::user_by_email(&store, &user, lang).await?;
            let token =
                bootstrap::create_token(&store, user.id, &label, !read_only, schedule, now).await?;
            let served = bootstrap::Served::read(&cli.data.data_dir);
            let url = match (addr, &served) {
                (Some(addr), _) => bootstrap::mcp_url(addr),
                (None, Some(s)) => s.mcp_url.clone(),
                (None, None) => bootstrap::mcp_url(DEFAULT_ADDR.parse().expect("an address")),
            };
            let public_url = match (addr, served) {
                (Some(addr), _) => bootstrap::base_url(addr),
                (None, Some(s)) => s.public_url,
                (None, None) => DEFAULT_PUBLIC_URL.to_owned(),
            };
            let launch = stdio_launch(&cli.data, &public_url);
            print!(
                "{}",
                bootstrap::new_token_text(lang, &user, label.trim(), &token, &url, &launch)
            );
            Ok(())
        }
        Command::Token(TokenCommand::List { user }) => {
            let user = bootstrap::user_by_email(&store, &user, lang).await?;
            let tokens = store.tokens(user.id).await?;
            print!("{}", bootstrap::token_table(lang, &user, &tokens));
            Ok(())
        }
        Command::Token(TokenCommand::Revoke { user, id }) => {
            let user = bootstrap::user_by_email(&store, &user, lang).await?;
            if store.revoke_token(user.id, id, now).await? {
                println!(
                    "{}",
                    tr(
                        lang,
                        format!("Jeton {id} révoqué."),
                        format!("Token {id} revoked.")
                    )
                );
                Ok(())
            } else {
                Err(SetupError::Invalid(tr(
                    lang,
                    format!(
                        "{} n'a pas de jeton actif d'id {id} (voir `palmaplan token list --user {}`).",
                        user.email, user.email
                    ),
                    format!(
                        "{} has no live token with id {id} (see `palmaplan token list --user {}`).",
                        user.email, user.email
                    ),
                )))
            }
        }
        Command::User(UserCommand::Add { name, email }) => {
            let id = bootstrap::add_user(&store, &name, &email, lang, now).await?;
            println!(
                "{}",
                tr(
                    lang,
                    format!(
                        "Utilisateur {id} ajouté\u{a0}: {} <{}>. Donnez-lui un jeton avec `palmaplan token create --user {} --label NOM`.",
                        name.trim(),
                        email.trim(),
                        email.trim()
                    ),
                    format!(
                        "User {id} added: {} <{}>. Give them a token with `palmaplan token create --user {} --label NAME`.",
                        name.trim(),
                        email.trim(),
                        email.trim()
                    ),
                )
            );
            Ok(())
        }
        Command::User(UserCommand::SignInLink { email, public_url }) => {
            let link =
                bootstrap::sign_in_link(&store, &email, &public_url, SystemClock.now_ms(), lang)
                    .await?;
            println!("{link}");
            eprintln!(
                "{}",
                tr(
                    lang,
                    format!(
                        "Lien de connexion pour {email}\u{a0}: valable {} minutes, une seule fois. Ne le donnez qu'à cette personne.",
                        palmaplan_server::oauth::SIGNIN_LINK_MINUTES
                    ),
                    format!(
                        "Sign-in link for {email}: valid {} minutes, once. Give it to that person only.",
                        palmaplan_server::oauth::SIGNIN_LINK_MINUTES
                    ),
                )
            );
            Ok(())
        }
        Command::User(UserCommand::SetPassword { email }) => {
            let mut input = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin().take(4096), &mut input)
                .map_err(|e| SetupError::Invalid(format!("cannot read standard input: {e}")))?;
            let user = bootstrap::set_password(&store, &email, &input, lang).await?;
            println!(
                "{}",
                tr(
                    lang,
                    format!(
                        "Mot de passe de {} enregistré. Ses connexions ouvertes aux pages d'autorisation sont fermées.",
                        user.email
                    ),
                    format!(
                        "Password of {} set. Their open sign-ins to the consent pages are ended.",
                        user.email
                    ),
                )
            );
            Ok(())
        }
        Command::Grant(GrantCommand::List { user }) => {
            let user = bootstrap::user_by_email(&store, &user, lang).await?;
            let grants = store.grants(user.id).await?;
            print!("{}", bootstrap::grant_table(lang, &user, &grants));
            Ok(())
        }
        Command::Grant(GrantCommand::Revoke { user, id }) => {
            let user = bootstrap::user_by_email(&store, &user, lang).await?;
            if store.revoke_grant(id, Some(user.id), now).await? {
                println!(
                    "{}",
                    tr(
                        lang,
                        format!("Autorisation {id} révoquée."),
                        format!("Grant {id} revoked.")
                    )
                );
                Ok(())
            } else {
                Err(SetupError::Invalid(tr(
                    lang,
                    format!(
                        "{} n'a pas d'autorisation active d'id {id} (voir `palmaplan grant list --user {}`).",
                        user.email, user.email
                    ),
                    format!(
                        "{} has no live grant with id {id} (see `palmaplan grant list --user {}`).",
                        user.email, user.email
                    ),
                )))
            }
        }
        Command::Demo {
            user,
            synthetic_bars: Some(n),
        } => {
            let user = bootstrap::user_by_email(&store, &user, lang).await?;
            let id = bootstrap::add_synthetic(&store, user.id, n as usize, now).await?;
            println!(
                "{}",
                tr(
                    lang,
                    format!(
                        "Planning généré de {n} blocs ajouté (id {id}) pour {}.",
                        user.email
                    ),
                    format!(
                        "Generated schedule of {n} bars added (id {id}) for {}.",
                        user.email
                    ),
                )
            );
            Ok(())
        }
        Command::Demo {
            user,
            synthetic_bars: None,
        } => {
            let user = bootstrap::user_by_email(&store, &user, lang).await?;
            let id = bootstrap::add_demo(&store, user.id, now).await?;
            println!(
                "{}",
                tr(
                    lang,
                    format!(
                        "Planning de démonstration «\u{a0}S/4HANA Migration\u{a0}» ajouté (id {id}) pour {}.",
                        user.email
                    ),
                    format!(
                        "Demo schedule “S/4HANA Migration” added (id {id}) for {}.",
                        user.email
                    ),
                )
            );
            Ok(())
        }
    }
}

/// The database URL: the one given, else a SQLite file in the data folder (created).
fn database_url(data: &DataArgs) -> Result<String, SetupError> {
    if let Some(url) = &data.database_url {
        return Ok(url.clone());
    }
    std::fs::create_dir_all(&data.data_dir).map_err(|e| {
        SetupError::Invalid(format!(
            "cannot create the data folder {}: {e}",
            data.data_dir.display()
        ))
    })?;
    Ok(format!(
        "sqlite://{}",
        data.data_dir.join("palmaplan.sqlite").display()
    ))
}

async fn open_store(data: &DataArgs) -> Result<Store, SetupError> {
    let url = database_url(data)?;
    let options = StoreOptions {
        state_cache_bytes: data.state_cache_mb.saturating_mul(1 << 20),
        sqlite_full_sync: data.sqlite_sync == SyncArg::Full,
        ..StoreOptions::default()
    };
    let store = Store::open_with(&url, options).await?;
    tracing::debug!(backend = ?store.backend(), "database open");
    Ok(store)
}

/// The address `serve` listens at by default.
const DEFAULT_ADDR: &str = "127.0.0.1:4785";

/// Where `stdio` signs `/embed` links for by default: `serve`'s default address.
const DEFAULT_PUBLIC_URL: &str = "http://127.0.0.1:4785";

/// How a client starts `palmaplan stdio` on the same data, its `/embed` links
/// naming `public_url` (where `serve` is reached).
fn stdio_launch(data: &DataArgs, public_url: &str) -> StdioLaunch {
    let program = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "palmaplan".into());
    let mut args = vec!["stdio".to_string()];
    match &data.database_url {
        Some(url) => args.extend(["--database-url".into(), url.clone()]),
        None => args.extend(["--data-dir".into(), absolute(&data.data_dir)]),
    }
    if data.lang == LangArg::En {
        args.extend(["--lang".into(), "en".into()]);
    }
    if public_url != DEFAULT_PUBLIC_URL {
        args.extend(["--public-url".into(), public_url.to_owned()]);
    }
    StdioLaunch { program, args }
}

fn absolute(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

async fn serve(data: &DataArgs, store: Store, args: ServeArgs) -> Result<(), SetupError> {
    let lang = Lang::from(data.lang);
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .map_err(|e| {
            SetupError::Invalid(tr(
                lang,
                format!(
                    "impossible d'écouter sur {}\u{a0}: {e} (changez --addr ou PALMAPLAN_ADDR)",
                    args.addr
                ),
                format!(
                    "cannot listen on {}: {e} (change --addr or PALMAPLAN_ADDR)",
                    args.addr
                ),
            ))
        })?;
    let addr = listener.local_addr().unwrap_or(args.addr);
    let url = bootstrap::mcp_url(addr);
    let public_url = match &args.public_url {
        Some(url) => url.clone(),
        None => {
            if addr.ip().is_unspecified() {
                tracing::warn!(%addr, "listening on every interface: give --public-url so that /embed links name an address people can reach");
            }
            format!("http://{addr}")
        }
    };
    if let Err(e) = (bootstrap::Served {
        mcp_url: url.clone(),
        public_url: public_url.clone(),
    })
    .write(&data.data_dir)
    {
        tracing::warn!(error = %e, "cannot record the served address in the data folder (token create will print the default address)");
    }
    let clock = Arc::new(SystemClock);
    if let Some(first) = bootstrap::first_start(
        &store,
        &args.owner_name,
        &args.owner_email,
        lang,
        clock.now_ms(),
    )
    .await?
    {
        println!(
            "{}",
            bootstrap::first_start_banner(lang, &first, &url, &stdio_launch(data, &public_url))
        );
    }
    let links = embed_links(data, &public_url, lang)?;
    let planning = Planning::with_embed(store, clock, links);
    let mut state = AppState::new(planning, lang);
    state.allowed_hosts = args.allowed_hosts;
    state.allowed_origins = args.allowed_origins;
    state.trusted_proxies = args.trusted_proxies;
    let shutdown = state.shutdown.clone();
    tokio::spawn(async move {
        stop_signal().await;
        tracing::info!("stopping: closing MCP sessions and finishing requests in flight");
        shutdown.cancel();
    });
    tracing::info!(%url, version = env!("CARGO_PKG_VERSION"), "PalmaPlan serving MCP");
    let stopped = state.shutdown.clone();
    let served = http::serve(listener, state);
    // Requests in flight get a few seconds; a client that holds a stream open longer
    // does not keep the server from stopping.
    let result = tokio::select! {
        r = served => r,
        () = async { stopped.cancelled().await; tokio::time::sleep(Duration::from_secs(10)).await } => Ok(()),
    };
    result.map_err(|e| SetupError::Invalid(format!("HTTP server failed: {e}")))?;
    tracing::info!("stopped");
    Ok(())
}

/// Ctrl-C, or SIGTERM (service managers, containers).
async fn stop_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// The /embed links: signed with the secret of the data folder (also when the
/// database is elsewhere), at the public address given.
fn embed_links(data: &DataArgs, public_url: &str, lang: Lang) -> Result<Embed, SetupError> {
    let url = public_url.trim();
    if !(url.starts_with("http://") || url.starts_with("https://")) || url.contains(['?', '#', ' '])
    {
        return Err(SetupError::Invalid(tr(
            lang,
            format!(
                "--public-url «\u{a0}{url}\u{a0}»\u{a0}: donnez une adresse http:// ou https:// sans\u{202f}? ni #, par exemple https://plan.example.com"
            ),
            format!(
                "--public-url “{url}”: give an http:// or https:// address without ? or #, e.g. https://plan.example.com"
            ),
        )));
    }
    Ok(Embed::new(&data.data_dir, url))
}

async fn stdio(store: Store, lang: Lang, token: &str, links: Embed) -> Result<(), SetupError> {
    let token = token.trim();
    let how = tr(
        lang,
        "Créez un jeton avec `palmaplan token create --user EMAIL --label NOM` et passez-le dans PALMAPLAN_TOKEN.",
        "Create a token with `palmaplan token create --user EMAIL --label NAME` and pass it in PALMAPLAN_TOKEN.",
    );
    if !auth::looks_like_token(token) {
        return Err(SetupError::Invalid(tr(
            lang,
            format!(
                "le jeton donné n'a pas la forme ppt_ suivie de 64 chiffres hexadécimaux. {how}"
            ),
            format!("the token given is not ppt_ followed by 64 hex digits. {how}"),
        )));
    }
    let clock = Arc::new(SystemClock);
    let Some(info) = store
        .use_token(&auth::token_hash(token), clock.now_ms())
        .await?
    else {
        return Err(SetupError::Invalid(tr(
            lang,
            format!("ce jeton est inconnu ou révoqué dans cette base de données. {how}"),
            format!("this token is unknown or revoked in this database. {how}"),
        )));
    };
    let caller = Caller {
        user_id: info.user_id,
        can_write: info.can_write,
        only_schedule: info.schedule_id,
        max_role: None,
        lang,
        apps: false,
        credential: Some(info.id),
    };
    let server = McpServer::for_caller(Planning::with_embed(store, clock, links), caller);
    tracing::info!(
        user = info.user_id,
        token = info.id,
        "PalmaPlan serving MCP on stdio"
    );
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| SetupError::Invalid(format!("MCP over stdio could not start: {e}")))?;
    let _ = running.waiting().await;
    Ok(())
}
