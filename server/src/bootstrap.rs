//! Setting a server up: the first start (an owner, their first token, the demo
//! schedule), tokens and users made from the command line, and the client
//! configuration printed with a new token.
//!
//! Kept out of `main` so that it is tested: `main` only parses flags, opens the store
//! and prints what these functions return.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use palmaplan_model::{Lang, demo};

use crate::auth;
use crate::planning::tr;
use crate::storage::{GrantInfo, Store, StoreError, TokenInfo, User};

/// The name of the first token.
pub const FIRST_TOKEN_LABEL: &str = "first token";

/// Why a setup step failed, as a message for the person at the terminal.
#[derive(Debug)]
pub enum SetupError {
    Store(StoreError),
    /// The operating system gave no randomness for a token.
    Random(getrandom::Error),
    /// The request cannot be done as asked; the text says what to do.
    Invalid(String),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Store(e) => write!(f, "{e}"),
            SetupError::Random(e) => write!(f, "no randomness for a token: {e}"),
            SetupError::Invalid(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SetupError {}

impl From<StoreError> for SetupError {
    fn from(e: StoreError) -> SetupError {
        SetupError::Store(e)
    }
}

/// A token just made: its id and its secret (shown once, never stored).
#[derive(Clone, Debug)]
pub struct NewToken {
    pub id: i64,
    pub secret: String,
}

/// What the first start made.
#[derive(Clone, Debug)]
pub struct FirstStart {
    pub owner: User,
    pub token: NewToken,
    pub demo_schedule: i64,
}

/// On a database without users: creates the owner, a write token labelled
/// "first token", and the demo schedule "S/4HANA Migration" owned by them. Returns
/// `None` (and changes nothing) when the database already has users.
pub async fn first_start(
    store: &Store,
    owner_name: &str,
    owner_email: &str,
    lang: Lang,
    now_ms: i64,
) -> Result<Option<FirstStart>, SetupError> {
    if store.user_count().await? > 0 {
        return Ok(None);
    }
    let user_id = add_user(store, owner_name, owner_email, lang, now_ms).await?;
    let token = create_token(store, user_id, FIRST_TOKEN_LABEL, true, None, now_ms).await?;
    let demo_schedule = add_demo(store, user_id, now_ms).await?;
    let owner = store
        .user(user_id)
        .await?
        .ok_or(SetupError::Store(StoreError::NotFound))?;
    Ok(Some(FirstStart {
        owner,
        token,
        demo_schedule,
    }))
}

/// Adds a user after checking the name and e-mail.
pub async fn add_user(
    store: &Store,
    name: &str,
    email: &str,
    lang: Lang,
    now_ms: i64,
) -> Result<i64, SetupError> {
    let (name, email) = (name.trim(), email.trim());
    if name.is_empty() || email.is_empty() || !email.contains('@') {
        return Err(SetupError::Invalid(tr(
            lang,
            format!(
                "Il faut un nom et une adresse e-mail (reçu «\u{a0}{name}\u{a0}», «\u{a0}{email}\u{a0}»)."
            ),
            format!("A name and an e-mail address are needed (got “{name}”, “{email}”)."),
        )));
    }
    if store.user_by_email(email).await?.is_some() {
        return Err(SetupError::Invalid(tr(
            lang,
            format!("Un utilisateur a déjà l'adresse {email}."),
            format!("A user already has the address {email}."),
        )));
    }
    Ok(store.add_user(name, email, now_ms).await?)
}

/// The user with this e-mail, or a message saying how to add them.
pub async fn user_by_email(store: &Store, email: &str, lang: Lang) -> Result<User, SetupError> {
    store.user_by_email(email.trim()).await?.ok_or_else(|| {
        SetupError::Invalid(tr(
            lang,
            format!("Aucun utilisateur n'a l'adresse {email}. Ajoutez-le avec `palmaplan user add --name NOM --email {email}`."),
            format!("No user has the address {email}. Add them with `palmaplan user add --name NAME --email {email}`."),
        ))
    })
}

/// Makes a named token for a user; with `schedule`, only for that schedule, on which
/// the user must have a role.
pub async fn create_token(
    store: &Store,
    user_id: i64,
    label: &str,
    can_write: bool,
    schedule: Option<i64>,
    now_ms: i64,
) -> Result<NewToken, SetupError> {
    let label = label.trim();
    if label.is_empty() {
        return Err(SetupError::Invalid(
            "a token needs a label (--label), e.g. \"laptop\" / un jeton a besoin d'un nom (--label)"
                .into(),
        ));
    }
    if let Some(id) = schedule
        && store.role(id, user_id).await?.is_none()
    {
        return Err(SetupError::Invalid(format!(
            "this user has no role on schedule {id} / cet utilisateur n'a pas de rôle sur le planning {id}"
        )));
    }
    let secret = auth::new_token().map_err(SetupError::Random)?;
    let id = store
        .add_token(
            user_id,
            label,
            &auth::token_hash(&secret),
            can_write,
            schedule,
            now_ms,
        )
        .await?;
    Ok(NewToken { id, secret })
}

/// Adds a copy of the demo schedule owned by the user; returns its id.
pub async fn add_demo(store: &Store, user_id: i64, now_ms: i64) -> Result<i64, SetupError> {
    Ok(store
        .create_schedule(&demo::s4hana_migration(), user_id, now_ms)
        .await?)
}

/// Adds a generated schedule of `bars` bars (the model's `synth`, fixed seed) for a user.
pub async fn add_synthetic(
    store: &Store,
    user_id: i64,
    bars: usize,
    now_ms: i64,
) -> Result<i64, SetupError> {
    let schedule = palmaplan_model::synth::generate(palmaplan_model::synth::Spec::new(bars));
    Ok(store.create_schedule(&schedule, user_id, now_ms).await?)
}

/// The URL clients use for a listening address: a wildcard address is reached on
/// loopback from the same machine.
pub fn mcp_url(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        ip if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        ip => ip,
    };
    match ip {
        IpAddr::V4(v4) => format!("http://{v4}:{}/mcp", addr.port()),
        IpAddr::V6(v6) => format!("http://[{v6}]:{}/mcp", addr.port()),
    }
}

/// `http://HOST:PORT` of a listening address (loopback for an unspecified one).
pub fn base_url(addr: SocketAddr) -> String {
    mcp_url(addr).trim_end_matches("/mcp").to_owned()
}

/// Where `palmaplan serve` last served a data folder: what `token create` (another
/// process) prints in its configurations, so they point where the server is. Kept in
/// the data folder as `served.json`, written at each start.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Served {
    pub mcp_url: String,
    pub public_url: String,
}

impl Served {
    pub const FILE: &'static str = "served.json";

    /// The record of a data folder, if a server wrote a readable one.
    pub fn read(data_dir: &std::path::Path) -> Option<Served> {
        let text = std::fs::read_to_string(data_dir.join(Self::FILE)).ok()?;
        serde_json::from_str(&text).ok()
    }

    pub fn write(&self, data_dir: &std::path::Path) -> std::io::Result<()> {
        std::fs::create_dir_all(data_dir)?;
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(data_dir.join(Self::FILE), text + "\n")
    }
}

/// How a client starts PalmaPlan itself over stdio.
#[derive(Clone, Debug)]
pub struct StdioLaunch {
    pub program: String,
    pub args: Vec<String>,
}

/// Ready-to-paste client configurations for a token: Claude Code, VS Code and any
/// client taking an HTTP URL with headers, and Claude Desktop (whose configuration
/// file starts local servers over stdio).
pub fn client_setup(lang: Lang, url: &str, secret: &str, stdio: &StdioLaunch) -> String {
    let bearer = format!("Bearer {secret}");
    // Written by hand (values escaped by serde_json) so the keys keep the order the
    // clients' documentation shows.
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let http_entry = format!(
        "\"palmaplan\": {{\n      \"type\": \"http\",\n      \"url\": {},\n      \"headers\": {{ \"Authorization\": {} }}\n    }}",
        q(url),
        q(&bearer)
    );
    let wrap =
        |key: &str, entry: &str| format!("  {{\n    \"{key}\": {{\n      {entry}\n    }}\n  }}\n");
    let vscode = wrap("servers", &http_entry.replace("\n", "\n  "));
    let mcp_json = wrap("mcpServers", &http_entry.replace("\n", "\n  "));
    let args: Vec<String> = stdio.args.iter().map(|a| q(a)).collect();
    let desktop_entry = format!(
        "\"palmaplan\": {{\n        \"command\": {},\n        \"args\": [{}],\n        \"env\": {{ \"PALMAPLAN_TOKEN\": {} }}\n      }}",
        q(&stdio.program),
        args.join(", "),
        q(secret)
    );
    let desktop = wrap("mcpServers", &desktop_entry);
    let mut out = String::new();
    out.push_str(&tr(lang, "Claude Code\u{a0}:\n", "Claude Code:\n"));
    out.push_str(&format!(
        "  claude mcp add --transport http palmaplan {url} --header \"Authorization: {bearer}\"\n\n"
    ));
    out.push_str(&tr(
        lang,
        "VS Code (fichier .vscode/mcp.json)\u{a0}:\n",
        "VS Code (file .vscode/mcp.json):\n",
    ));
    out.push_str(&vscode);
    out.push('\n');
    out.push_str(&tr(
        lang,
        "Claude Desktop (claude_desktop_config.json\u{202f}; il lance PalmaPlan lui-même, par stdio, sur la même base)\u{a0}:\n",
        "Claude Desktop (claude_desktop_config.json; it starts PalmaPlan itself, over stdio, on the same database):\n",
    ));
    out.push_str(&desktop);
    out.push('\n');
    out.push_str(&tr(
        lang,
        "Autres clients qui prennent une URL et des en-têtes (.mcp.json de Claude Code, Cursor…)\u{a0}:\n",
        "Other clients taking a URL and headers (Claude Code's .mcp.json, Cursor…):\n",
    ));
    out.push_str(&mcp_json);
    out
}

/// The text printed at the first start.
pub fn first_start_banner(
    lang: Lang,
    first: &FirstStart,
    url: &str,
    stdio: &StdioLaunch,
) -> String {
    let owner = &first.owner;
    let mut out = tr(
        lang,
        format!(
            "Premier démarrage de PalmaPlan\u{a0}: propriétaire «\u{a0}{}\u{a0}» <{}>, planning de démonstration «\u{a0}S/4HANA Migration\u{a0}» (id {}).\n\
             Jeton «\u{a0}{FIRST_TOKEN_LABEL}\u{a0}» (affiché cette seule fois\u{202f}; gardez-le comme un mot de passe)\u{a0}:\n\n  {}\n\n",
            owner.name, owner.email, first.demo_schedule, first.token.secret
        ),
        format!(
            "PalmaPlan's first start: owner “{}” <{}>, demo schedule “S/4HANA Migration” (id {}).\n\
             Token “{FIRST_TOKEN_LABEL}” (shown only this once; keep it like a password):\n\n  {}\n\n",
            owner.name, owner.email, first.demo_schedule, first.token.secret
        ),
    );
    out.push_str(&client_setup(lang, url, &first.token.secret, stdio));
    out
}

/// What `palmaplan token create` prints: the secret, once, and the configurations.
pub fn new_token_text(
    lang: Lang,
    user: &User,
    label: &str,
    token: &NewToken,
    url: &str,
    stdio: &StdioLaunch,
) -> String {
    let mut out = tr(
        lang,
        format!(
            "Jeton «\u{a0}{label}\u{a0}» (id {}) pour {} (affiché cette seule fois\u{202f}; gardez-le comme un mot de passe)\u{a0}:\n\n  {}\n\n",
            token.id, user.email, token.secret
        ),
        format!(
            "Token “{label}” (id {}) for {} (shown only this once; keep it like a password):\n\n  {}\n\n",
            token.id, user.email, token.secret
        ),
    );
    out.push_str(&client_setup(lang, url, &token.secret, stdio));
    out
}

/// What `palmaplan token list` prints: one line per token, never a secret.
pub fn token_table(lang: Lang, user: &User, tokens: &[TokenInfo]) -> String {
    if tokens.is_empty() {
        return tr(
            lang,
            format!("{} n'a aucun jeton.\n", user.email),
            format!("{} has no token.\n", user.email),
        );
    }
    let mut out = String::new();
    for t in tokens {
        let scope = if t.can_write { "read+write" } else { "read" };
        let schedule = t.schedule_id.map_or_else(
            || tr(lang, "tous plannings", "all schedules"),
            |id| tr(lang, format!("planning {id}"), format!("schedule {id}")),
        );
        let used = t
            .last_used_at
            .map_or_else(|| tr(lang, "jamais", "never"), utc);
        let state = t.revoked_at.map_or_else(
            || tr(lang, "actif", "live"),
            |at| {
                tr(
                    lang,
                    format!("révoqué {}", utc(at)),
                    format!("revoked {}", utc(at)),
                )
            },
        );
        let (label, created, used_word) = match lang {
            Lang::Fr => (format!("«\u{a0}{}\u{a0}»", t.label), "créé", "utilisé"),
            Lang::En => (format!("“{}”", t.label), "created", "used"),
        };
        out.push_str(&format!(
            "{}  {label}  {scope}  {schedule}  {created} {}  {used_word} {used}  {state}\n",
            t.id,
            utc(t.created_at),
        ));
    }
    out
}

/// The shortest password `palmaplan user set-password` takes.
pub const MIN_PASSWORD_CHARS: usize = 10;

/// Sets the password of the OAuth sign-in page for a user (argon2id; see
/// `crate::oauth`). The first line of `input` is the password.
pub async fn set_password(
    store: &Store,
    email: &str,
    input: &str,
    lang: Lang,
) -> Result<User, SetupError> {
    let user = user_by_email(store, email, lang).await?;
    let password = input.lines().next().unwrap_or("");
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(SetupError::Invalid(tr(
            lang,
            format!(
                "mot de passe trop court\u{a0}: donnez-en un d'au moins {MIN_PASSWORD_CHARS} caractères sur l'entrée standard (par exemple `printf '%s\\n' \"$MOT\" | palmaplan user set-password --email {}`).",
                user.email
            ),
            format!(
                "password too short: give one of at least {MIN_PASSWORD_CHARS} characters on standard input (e.g. `printf '%s\\n' \"$WORD\" | palmaplan user set-password --email {}`).",
                user.email
            ),
        )));
    }
    crate::oauth::set_password(store, user.id, password)
        .await
        .map_err(SetupError::Invalid)?;
    Ok(user)
}

/// `palmaplan user sign-in-link`: a one-time link to the web screen for the user of
/// `email`, at `public_url` (stored by its hash; the secret is only in the answer).
pub async fn sign_in_link(
    store: &Store,
    email: &str,
    public_url: &str,
    now_ms: i64,
    lang: Lang,
) -> Result<String, SetupError> {
    let user = user_by_email(store, email, lang).await?;
    let base = public_url.trim().trim_end_matches('/');
    url::Url::parse(base).map_err(|e| {
        SetupError::Invalid(tr(
            lang,
            format!("--public-url {public_url} n'est pas une adresse ({e})\u{a0}: donnez par exemple https://plan.example.org."),
            format!("--public-url {public_url} is not an address ({e}): give e.g. https://plan.example.org."),
        ))
    })?;
    let secret = crate::auth::new_secret(crate::auth::SIGNIN_LINK_PREFIX)
        .map_err(|e| SetupError::Invalid(e.to_string()))?;
    store
        .add_signin_link(
            &crate::auth::token_hash(&secret),
            user.id,
            now_ms,
            now_ms + crate::oauth::SIGNIN_LINK_MINUTES * 60_000,
        )
        .await?;
    // Under the public URL's own path (a proxy may serve PalmaPlan below a prefix), as
    // the OAuth issuer and the /embed links are.
    let mut link = url::Url::parse(&format!("{base}/oauth/link"))
        .map_err(|e| SetupError::Invalid(e.to_string()))?;
    link.query_pairs_mut().append_pair("t", &secret);
    Ok(link.to_string())
}

/// What `palmaplan grant list` prints: one line per OAuth grant (an application a
/// person allowed), never a secret.
pub fn grant_table(lang: Lang, user: &User, grants: &[GrantInfo]) -> String {
    if grants.is_empty() {
        return tr(
            lang,
            format!("{} n'a autorisé aucune application.\n", user.email),
            format!("{} has allowed no application.\n", user.email),
        );
    }
    let mut out = String::new();
    for g in grants {
        let scope = if g.can_write { "read+write" } else { "read" };
        let schedule = g.schedule_id.map_or_else(
            || tr(lang, "tous plannings", "all schedules"),
            |id| tr(lang, format!("planning {id}"), format!("schedule {id}")),
        );
        let used = g
            .last_used_at
            .map_or_else(|| tr(lang, "jamais", "never"), utc);
        let state = g.revoked_at.map_or_else(
            || tr(lang, "active", "live"),
            |at| {
                tr(
                    lang,
                    format!("révoquée {}", utc(at)),
                    format!("revoked {}", utc(at)),
                )
            },
        );
        let (name, created, used_word) = match lang {
            Lang::Fr => (
                format!("«\u{a0}{}\u{a0}»", g.client_name),
                "créée",
                "utilisée",
            ),
            Lang::En => (format!("“{}”", g.client_name), "created", "used"),
        };
        out.push_str(&format!(
            "{}  {name}  {scope}  {schedule}  {created} {}  {used_word} {used}  {state}\n",
            g.id,
            utc(g.created_at),
        ));
    }
    out
}

/// A time stamp for people: `YYYY-MM-DD HH:MM UTC`.
pub fn utc(ms: i64) -> String {
    crate::utc::stamp(ms, crate::utc::Precision::Minutes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Role;

    async fn store(name: &str) -> Store {
        let dir =
            std::env::temp_dir().join(format!("palmaplan-bootstrap-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Store::open(&format!("sqlite://{}", dir.join("db.sqlite").display()))
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn first_start_makes_an_owner_a_token_and_the_demo_once() {
        let store = store("first").await;
        let first = first_start(&store, "Owner", "owner@localhost", Lang::Fr, 5)
            .await
            .unwrap()
            .expect("an empty database gets a first start");
        assert_eq!(first.owner.email, "owner@localhost");
        assert!(auth::looks_like_token(&first.token.secret));
        let live = store
            .use_token(&auth::token_hash(&first.token.secret), 6)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (live.user_id, live.can_write, live.schedule_id),
            (first.owner.id, true, None)
        );
        assert_eq!(live.label, FIRST_TOKEN_LABEL);
        assert_eq!(
            store
                .role(first.demo_schedule, first.owner.id)
                .await
                .unwrap(),
            Some(Role::Owner)
        );
        let demo = store.load(first.demo_schedule).await.unwrap();
        assert_eq!(demo.state.name, "S/4HANA Migration");
        // A second start changes nothing.
        assert!(
            first_start(&store, "Other", "other@localhost", Lang::Fr, 7)
                .await
                .unwrap()
                .is_none()
        );
        assert_eq!(store.user_count().await.unwrap(), 1);
    }

    #[tokio::test]
    async fn users_and_tokens_are_checked() {
        let store = store("tokens").await;
        let ada = add_user(&store, "Ada", "ada@example.org", Lang::En, 1)
            .await
            .unwrap();
        let again = add_user(&store, "Ada", "ada@example.org", Lang::En, 1).await;
        assert!(again.unwrap_err().to_string().contains("already"));
        let bad = add_user(&store, "", "nobody", Lang::Fr, 1).await;
        assert!(matches!(bad, Err(SetupError::Invalid(_))));
        let missing = user_by_email(&store, "bob@example.org", Lang::En).await;
        assert!(
            missing
                .unwrap_err()
                .to_string()
                .contains("palmaplan user add")
        );
        // A restricted token needs a role on its schedule.
        let other = add_user(&store, "Bob", "bob@example.org", Lang::En, 1)
            .await
            .unwrap();
        let theirs = add_demo(&store, other, 1).await.unwrap();
        let refused = create_token(&store, ada, "laptop", false, Some(theirs), 2).await;
        assert!(matches!(refused, Err(SetupError::Invalid(_))));
        let mine = add_demo(&store, ada, 1).await.unwrap();
        let t = create_token(&store, ada, "laptop", false, Some(mine), 2)
            .await
            .unwrap();
        let info = &store.tokens(ada).await.unwrap()[0];
        assert_eq!(
            (info.id, info.can_write, info.schedule_id),
            (t.id, false, Some(mine))
        );
        assert!(
            create_token(&store, ada, "  ", true, None, 2)
                .await
                .is_err()
        );
    }

    #[test]
    fn urls_and_client_setups_are_ready_to_paste() {
        assert_eq!(
            mcp_url("0.0.0.0:4785".parse().unwrap()),
            "http://127.0.0.1:4785/mcp"
        );
        assert_eq!(mcp_url("[::1]:80".parse().unwrap()), "http://[::1]:80/mcp");
        let launch = StdioLaunch {
            program: "/opt/palmaplan".into(),
            args: vec!["stdio".into(), "--data-dir".into(), "/srv/pp".into()],
        };
        let text = client_setup(Lang::En, "http://127.0.0.1:4785/mcp", "ppt_x", &launch);
        assert!(text.contains(
            "claude mcp add --transport http palmaplan http://127.0.0.1:4785/mcp --header \"Authorization: Bearer ppt_x\""
        ));
        assert!(text.contains("\"servers\""), "{text}");
        assert!(text.contains("\"type\": \"http\""), "{text}");
        assert!(text.contains("\"PALMAPLAN_TOKEN\": \"ppt_x\""), "{text}");
        assert!(text.contains("\"command\": \"/opt/palmaplan\""), "{text}");
        // Every JSON block parses as JSON.
        let blocks: Vec<&str> = text.split("\n\n").filter(|b| b.contains("  {")).collect();
        assert_eq!(blocks.len(), 3, "{text}");
        for b in blocks {
            let json = &b[b.find("  {").unwrap()..];
            serde_json::from_str::<serde_json::Value>(json)
                .unwrap_or_else(|e| panic!("{e}: {json}"));
        }
    }

    #[tokio::test]
    async fn token_texts_show_secrets_once_and_lists_never() {
        let store = store("texts").await;
        let first = first_start(&store, "Owner", "owner@localhost", Lang::En, 0)
            .await
            .unwrap()
            .unwrap();
        let launch = StdioLaunch {
            program: "palmaplan".into(),
            args: vec!["stdio".into()],
        };
        let made = create_token(&store, first.owner.id, "laptop", false, None, 90_061_000)
            .await
            .unwrap();
        let text = new_token_text(
            Lang::En,
            &first.owner,
            "laptop",
            &made,
            "http://x/mcp",
            &launch,
        );
        assert!(
            text.contains(&made.secret) && text.contains("claude mcp add"),
            "{text}"
        );
        store
            .revoke_token(first.owner.id, first.token.id, 120_000)
            .await
            .unwrap();
        let tokens = store.tokens(first.owner.id).await.unwrap();
        let table = token_table(Lang::En, &first.owner, &tokens);
        assert!(!table.contains("ppt_"), "{table}");
        assert!(
            table.contains(
                "“laptop”  read  all schedules  created 1970-01-02 01:01 UTC  used never  live"
            ),
            "{table}"
        );
        assert!(table.contains("“first token”  read+write"), "{table}");
        assert!(table.contains("revoked 1970-01-01 00:02 UTC"), "{table}");
        assert_eq!(utc(-60_000), "1969-12-31 23:59 UTC");
    }
}
