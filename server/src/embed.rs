//! Signed `/embed` links: the one-hour link that `show_schedule` gives a client without
//! MCP Apps, so a person can open the schedule in a browser or an iframe.
//!
//! A link carries its own proof instead of a row in the database: a token
//! `payload.signature`, both base64url without padding. The payload is a small JSON
//! object (schedule, user, role cap, editable, issued at, expires at, and the named
//! token or OAuth grant the link was asked with); the signature is
//! HMAC-SHA256 of it under a server secret of 32 random bytes kept in the data folder
//! (`embed.key`, mode 0600, created on first use, also when the database is PostgreSQL:
//! the secret belongs to the server, not to the data). So a link is never stored, never
//! listed with the named tokens, and cannot be renewed: changing any byte breaks the
//! signature, and the expiry is inside what is signed. Deleting `embed.key` invalidates
//! every link at once.
//!
//! What a link allows is decided twice. At issue: editable only if the caller asked for
//! it AND their role and token allow writing; the role cap never exceeds their role.
//! At use: the user's CURRENT role on the schedule must still exist (removing their
//! access kills the link), the token or grant it was asked with must not be revoked
//! (revoking either kills the links it asked for), and the cap is the most they get (a
//! later promotion does not widen an old link). The HTTP layer (`http`) turns a verified link into a `Caller`.
//!
//! Whatever the role, the view under a link never sees members' e-mails nor absences'
//! reasons: [`scrub_reply`] removes them from every answer, as a last pass after the
//! tools' own privacy rules.
//!
//! Time comes in as `now_ms` from the planning service's injected `Clock`, so tests
//! move it (expiry is exact: a link issued at t is refused from t + 1 h on).

use crate::planning::Code;
use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use axum::http::StatusCode;
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use palmaplan_model::{Lang, Schedule};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Sha256;

use crate::bootstrap::utc;
use crate::planning::{Reply, role_name, tr};
use crate::storage::{Role, User};

/// How long a link works.
pub const LINK_LIFETIME_MS: i64 = 60 * 60 * 1000;

/// The secret's file name in the data folder.
pub const KEY_FILE: &str = "embed.key";

const KEY_LEN: usize = 32;

/// Signed before the payload, so this key's MACs mean "an embed link, version 1" and
/// nothing else.
const CONTEXT: &[u8] = b"palmaplan-embed-v1.";

/// Longer tokens are refused before any work (a real one is about 200 characters).
const MAX_TOKEN_LEN: usize = 1024;

/// The link service: where the secret lives and the public address of links.
#[derive(Debug)]
pub struct Embed {
    key: LinkKey,
    public_url: String,
}

/// What a link grants, as signed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claims {
    /// Payload version.
    #[serde(rename = "v")]
    pub version: u8,
    /// The one schedule the link opens.
    #[serde(rename = "s")]
    pub schedule: i64,
    /// The user the link acts as.
    #[serde(rename = "u")]
    pub user: i64,
    /// The most the link may do: the user's role when it was issued if editable,
    /// else viewer.
    #[serde(rename = "r")]
    pub cap: Role,
    /// Whether the view may write.
    #[serde(rename = "e")]
    pub editable: bool,
    /// Unix milliseconds.
    #[serde(rename = "iat")]
    pub issued_at: i64,
    /// Unix milliseconds; refused from this instant on.
    #[serde(rename = "exp")]
    pub expires_at: i64,
    /// The named token (its id) or OAuth grant (minus its id) the link was asked with:
    /// revoked, it ends the link. Absent from links asked otherwise.
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<i64>,
}

/// Who asks for a link, and what they asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    pub schedule: i64,
    pub user: i64,
    /// Their role on the schedule now.
    pub role: Role,
    /// Whether their token may write at all.
    pub token_can_write: bool,
    /// Whether they asked for an editable link.
    pub editable: bool,
    /// What they asked with (`Caller::credential`).
    pub credential: Option<i64>,
}

/// A new link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issued {
    pub token: String,
    pub claims: Claims,
}

/// Why a link does not open, or does not allow a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// No token came with the request.
    Missing,
    /// Not a token of ours at all (cut, garbled).
    Malformed,
    /// The signature does not match: changed, or signed by another server's key.
    Tampered,
    /// Past its hour.
    Expired { at_ms: i64 },
    /// A good link, for another schedule than the address names.
    WrongSchedule { link: i64, asked: String },
    /// The user no longer has any role on the schedule.
    NoAccess,
    /// The token or the application the link was asked with has been revoked.
    Revoked,
    /// A write under a read-only link.
    ReadOnly { tool: String },
    /// The server cannot read or create its secret, or gives no links.
    Key(String),
    /// The database does not answer: the link cannot be checked now.
    Unavailable,
}

impl LinkError {
    /// A short machine-readable code.
    pub fn code(&self) -> Code {
        match self {
            LinkError::Missing => Code::MissingLinkToken,
            LinkError::Malformed => Code::MalformedLink,
            LinkError::Tampered => Code::TamperedLink,
            LinkError::Expired { .. } => Code::ExpiredLink,
            LinkError::WrongSchedule { .. } => Code::WrongSchedule,
            LinkError::NoAccess => Code::NoAccess,
            LinkError::Revoked => Code::RevokedLink,
            LinkError::ReadOnly { .. } => Code::ReadOnlyLink,
            LinkError::Key(_) => Code::LinkKeyUnavailable,
            LinkError::Unavailable => Code::Unavailable,
        }
    }

    /// The HTTP status: 401 for a link that proves nothing (any more), 403 for a good
    /// link asked for something it does not allow, 503 when the server is at fault.
    pub fn status(&self) -> StatusCode {
        match self {
            LinkError::Missing
            | LinkError::Malformed
            | LinkError::Tampered
            | LinkError::Expired { .. }
            | LinkError::Revoked => StatusCode::UNAUTHORIZED,
            LinkError::WrongSchedule { .. } | LinkError::NoAccess | LinkError::ReadOnly { .. } => {
                StatusCode::FORBIDDEN
            }
            LinkError::Key(_) | LinkError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// A title for the page.
    pub fn title(&self, lang: Lang) -> String {
        let (fr, en) = match self {
            LinkError::Expired { .. } => ("Ce lien a expiré", "This link has expired"),
            LinkError::WrongSchedule { .. } => (
                "Ce lien n'ouvre pas ce planning",
                "This link does not open this schedule",
            ),
            LinkError::NoAccess | LinkError::Revoked => {
                ("Ce lien ne fonctionne plus", "This link no longer works")
            }
            LinkError::ReadOnly { .. } => {
                ("Ce lien est en lecture seule", "This link is read-only")
            }
            LinkError::Missing | LinkError::Malformed | LinkError::Tampered => {
                ("Ce lien n'est pas valide", "This link is not valid")
            }
            LinkError::Key(_) | LinkError::Unavailable => (
                "Liens indisponibles sur ce serveur",
                "Links are unavailable on this server",
            ),
        };
        tr(lang, fr, en)
    }

    /// What happened and what to do, for the person holding the link.
    pub fn message(&self, lang: Lang) -> String {
        let new_link = tr(
            lang,
            "Demandez un nouveau lien à l'assistant (outil show_schedule).",
            "Ask the assistant for a new link (the show_schedule tool).",
        );
        match self {
            LinkError::Missing => tr(
                lang,
                format!(
                    "Cette adresse n'a pas de jeton de lien («\u{a0}?t=…\u{a0}»)\u{a0}: elle n'ouvre rien seule. {new_link}"
                ),
                format!(
                    "This address has no link token (“?t=…”): it opens nothing by itself. {new_link}"
                ),
            ),
            LinkError::Malformed => tr(
                lang,
                format!(
                    "Ce lien est incomplet ou abîmé\u{a0}: son jeton n'a pas la forme attendue (copiez l'adresse entière). {new_link}"
                ),
                format!(
                    "This link is incomplete or damaged: its token is not in the expected form (copy the whole address). {new_link}"
                ),
            ),
            LinkError::Tampered => tr(
                lang,
                format!(
                    "Ce lien a été modifié, ou il n'a pas été émis par ce serveur\u{a0}: sa signature ne correspond pas. {new_link}"
                ),
                format!(
                    "This link has been altered, or was not issued by this server: its signature does not match. {new_link}"
                ),
            ),
            LinkError::Expired { at_ms } => tr(
                lang,
                format!(
                    "Ce lien a expiré ({})\u{a0}: il est valable une heure et ne se renouvelle pas. {new_link}",
                    utc(*at_ms)
                ),
                format!(
                    "This link expired ({}): it is valid for one hour and does not renew. {new_link}",
                    utc(*at_ms)
                ),
            ),
            LinkError::WrongSchedule { link, asked } => tr(
                lang,
                format!(
                    "Ce lien ouvre le planning {link}, pas le planning {asked}. Utilisez l'adresse telle qu'elle a été donnée, ou demandez un lien pour ce planning (outil show_schedule)."
                ),
                format!(
                    "This link opens schedule {link}, not schedule {asked}. Use the address as it was given, or ask for a link to that schedule (the show_schedule tool)."
                ),
            ),
            LinkError::NoAccess => tr(
                lang,
                "Ce lien ne fonctionne plus\u{a0}: la personne qui l'a demandé n'a plus accès à ce planning. Demandez l'accès à un propriétaire du planning.",
                "This link no longer works: the person who asked for it no longer has access to this schedule. Ask an owner of the schedule for access.",
            ),
            LinkError::Revoked => tr(
                lang,
                "Ce lien ne fonctionne plus\u{a0}: le jeton ou l'application qui l'a demandé a été révoqué. Reconnectez l'assistant, puis demandez-lui un nouveau lien (outil show_schedule).",
                "This link no longer works: the token or the application that asked for it has been revoked. Connect the assistant again, then ask it for a new link (the show_schedule tool).",
            ),
            LinkError::ReadOnly { tool } => tr(
                lang,
                format!(
                    "Ce lien est en lecture seule\u{a0}: «\u{a0}{tool}\u{a0}» modifie le planning. Pour modifier depuis la vue, demandez un lien modifiable (show_schedule avec «\u{a0}editable\u{a0}»: true\u{202f}; il faut le rôle éditeur)."
                ),
                format!(
                    "This link is read-only: “{tool}” changes the schedule. To edit from the view, ask for an editable link (show_schedule with “editable”: true; it needs the editor role)."
                ),
            ),
            LinkError::Key(detail) => tr(
                lang,
                format!(
                    "Le serveur ne peut pas utiliser sa clé de signature des liens ({detail}). Vérifiez que son dossier de données est accessible en écriture, puis demandez un nouveau lien."
                ),
                format!(
                    "The server cannot use its link signing key ({detail}). Check that its data folder is writable, then ask for a new link."
                ),
            ),
            LinkError::Unavailable => tr(
                lang,
                "Le serveur ne peut pas vérifier ce lien pour l'instant\u{a0}: sa base de données ne répond pas. Réessayez dans un instant.",
                "The server cannot check this link right now: its database does not answer. Try again in a moment.",
            ),
        }
    }
}

impl Claims {
    /// What a link issued now for `grant` allows: editable only when asked AND allowed
    /// by the role and the token; the cap is the role when editable, else viewer.
    pub fn for_grant(grant: &Grant, now_ms: i64) -> Claims {
        let editable = grant.editable && grant.token_can_write && grant.role >= Role::Editor;
        Claims {
            version: 1,
            schedule: grant.schedule,
            user: grant.user,
            cap: if editable { grant.role } else { Role::Viewer },
            editable,
            issued_at: now_ms,
            expires_at: now_ms.saturating_add(LINK_LIFETIME_MS),
            credential: grant.credential,
        }
    }

    /// The role the link acts with, given the user's role on the schedule NOW: refused
    /// when they have none any more; never more than the cap.
    pub fn effective_role(&self, current: Option<Role>) -> Result<Role, LinkError> {
        let role = current.ok_or(LinkError::NoAccess)?;
        Ok(role.min(self.cap))
    }

    /// Refuses a write under a read-only link.
    pub fn check_write(&self, tool: &str) -> Result<(), LinkError> {
        if self.editable {
            Ok(())
        } else {
            Err(LinkError::ReadOnly {
                tool: tool.to_owned(),
            })
        }
    }

    /// "read-only" or "editable (editor)", for texts.
    pub fn describe(&self, lang: Lang) -> String {
        if self.editable {
            tr(
                lang,
                format!("modifiable (rôle {})", role_name(self.cap, lang)),
                format!("editable ({} role)", role_name(self.cap, lang)),
            )
        } else {
            tr(lang, "en lecture seule", "read-only")
        }
    }
}

impl Embed {
    /// Links signed with the secret of `data_dir` (read or created on first use), at
    /// `public_url` (e.g. `http://127.0.0.1:4785`; a trailing `/` is dropped).
    pub fn new(data_dir: &Path, public_url: &str) -> Embed {
        Embed {
            key: LinkKey {
                path: data_dir.join(KEY_FILE),
                loaded: OnceLock::new(),
                creating: Mutex::new(()),
            },
            public_url: public_url.trim().trim_end_matches('/').to_owned(),
        }
    }

    /// The address links start with.
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    /// Where the secret is kept.
    pub fn key_path(&self) -> &Path {
        &self.key.path
    }

    /// A new link for `grant`, valid one hour from `now_ms`.
    pub fn issue(&self, grant: &Grant, now_ms: i64) -> Result<Issued, LinkError> {
        let claims = Claims::for_grant(grant, now_ms);
        let payload = serde_json::to_vec(&claims).map_err(|e| LinkError::Key(e.to_string()))?;
        let payload = b64url_encode(&payload);
        let signature = self.sign(&payload)?;
        Ok(Issued {
            token: format!("{payload}.{}", b64url_encode(&signature)),
            claims,
        })
    }

    /// Checks a token for the schedule of the address (`schedule`, as written in it):
    /// form, signature, expiry, schedule — in that order, so a forged token learns
    /// nothing but "tampered".
    pub fn verify(&self, token: &str, schedule: &str, now_ms: i64) -> Result<Claims, LinkError> {
        let token = token.trim();
        if token.is_empty() {
            return Err(LinkError::Missing);
        }
        if token.len() > MAX_TOKEN_LEN {
            return Err(LinkError::Malformed);
        }
        let (payload, signature) = token.split_once('.').ok_or(LinkError::Malformed)?;
        let signature = b64url_decode(signature).ok_or(LinkError::Malformed)?;
        let body = b64url_decode(payload).ok_or(LinkError::Malformed)?;
        if signature.len() != 32 || body.is_empty() {
            return Err(LinkError::Malformed);
        }
        let mut mac = self.mac()?;
        mac.update(payload.as_bytes());
        // Constant-time comparison.
        mac.verify_slice(&signature)
            .map_err(|_| LinkError::Tampered)?;
        // Signed by us, so well formed unless the format changed.
        let claims: Claims = serde_json::from_slice(&body).map_err(|_| LinkError::Malformed)?;
        if claims.version != 1 {
            return Err(LinkError::Malformed);
        }
        if now_ms >= claims.expires_at {
            return Err(LinkError::Expired {
                at_ms: claims.expires_at,
            });
        }
        if schedule.trim().parse::<i64>().ok() != Some(claims.schedule) {
            return Err(LinkError::WrongSchedule {
                link: claims.schedule,
                asked: schedule.chars().take(40).collect(),
            });
        }
        Ok(claims)
    }

    /// The link's address: `<public url>/embed/<schedule>?t=<token>`, then the view's
    /// options (`(name, value)`, values already plain text; they only choose what the
    /// page shows, so they are not signed).
    pub fn url(&self, schedule: i64, token: &str, options: &[(&str, String)]) -> String {
        let mut url = format!("{}/embed/{schedule}?t={token}", self.public_url);
        for (name, value) in options {
            url.push('&');
            url.push_str(name);
            url.push('=');
            url.push_str(&query_escape(value));
        }
        url
    }

    fn mac(&self) -> Result<Hmac<Sha256>, LinkError> {
        let key = self
            .key
            .get()
            .map_err(|e| LinkError::Key(format!("{}: {e}", self.key.path.display())))?;
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key)
            .map_err(|e| LinkError::Key(e.to_string()))?;
        mac.update(CONTEXT);
        Ok(mac)
    }

    fn sign(&self, payload: &str) -> Result<Vec<u8>, LinkError> {
        let mut mac = self.mac()?;
        mac.update(payload.as_bytes());
        Ok(mac.finalize().into_bytes().to_vec())
    }
}

/// The secret, read from its file once (or created there).
struct LinkKey {
    path: PathBuf,
    loaded: OnceLock<[u8; KEY_LEN]>,
    /// One creator per process; `create` handles other processes.
    creating: Mutex<()>,
}

impl std::fmt::Debug for LinkKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key itself.
        f.debug_struct("LinkKey")
            .field("path", &self.path)
            .field("loaded", &self.loaded.get().is_some())
            .finish()
    }
}

impl LinkKey {
    fn get(&self) -> io::Result<&[u8; KEY_LEN]> {
        if let Some(k) = self.loaded.get() {
            return Ok(k);
        }
        let _one = self.creating.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = self.loaded.get() {
            return Ok(k);
        }
        let key = load_or_create(&self.path)?;
        Ok(self.loaded.get_or_init(|| key))
    }
}

/// Reads the key file, or creates it with a new random key. Another process (a stdio
/// server on the same data) may create it at the same moment: the new key is written
/// to a private temporary file and hard-linked into place, which fails if the file
/// exists, so exactly one key wins and nobody reads a half-written file.
fn load_or_create(path: &Path) -> io::Result<[u8; KEY_LEN]> {
    match read_key(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        other => return other,
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut key = [0u8; KEY_LEN];
    getrandom::fill(&mut key).map_err(|e| io::Error::other(e.to_string()))?;
    let mut salt = [0u8; 8];
    getrandom::fill(&mut salt).map_err(|e| io::Error::other(e.to_string()))?;
    let tmp = path.with_file_name(format!("{KEY_FILE}.{}.tmp", b64url_encode(&salt)));
    write_private(&tmp, &key)?;
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => {
            tracing::info!(path = %path.display(), "created the secret that signs /embed links");
            Ok(key)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => read_key(path),
        // A file system without hard links: create the file directly (exclusive).
        Err(_) => match write_private(path, &key) {
            Ok(()) => Ok(key),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => read_key(path),
            Err(e) => Err(e),
        },
    }
}

/// Creates `path` (it must not exist), readable by this user only, holding `bytes`.
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options.open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

fn read_key(path: &Path) -> io::Result<[u8; KEY_LEN]> {
    let mut f = std::fs::File::open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = f.metadata()?.permissions().mode();
        if mode & 0o077 != 0 {
            tracing::warn!(
                path = %path.display(),
                mode = format!("{:o}", mode & 0o777),
                "the /embed link secret is readable by other users: chmod 600 it"
            );
        }
    }
    let mut bytes = Vec::with_capacity(KEY_LEN + 1);
    Read::by_ref(&mut f)
        .take(KEY_LEN as u64 + 1)
        .read_to_end(&mut bytes)?;
    bytes.try_into().map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "not a key of {KEY_LEN} bytes; delete the file to make a new one (links already given stop working)"
            ),
        )
    })
}

// ---------------------------------------------------------------------------------
// Encodings

/// base64url without padding (RFC 4648 §5), strict: no `=`, and the unused bits of the
/// last character must be zero. A decoder that accepted them set would let two
/// spellings carry one signature, so a changed character could go unnoticed. This is
/// exactly what links have always been written in, so links already given still open.
const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

pub(crate) fn b64url_encode(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

pub(crate) fn b64url_decode(s: &str) -> Option<Vec<u8>> {
    B64.decode(s).ok()
}

/// What a query value keeps as it is: RFC 3986's unreserved characters; everything
/// else is percent-encoded (a space as `%20`, which every reader takes, `+` too).
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encodes a query value.
pub(crate) fn query_escape(s: &str) -> String {
    utf8_percent_encode(s, QUERY_VALUE).to_string()
}

/// The value of `name` in a raw query string (`a=1&t=…`), decoded as browsers do
/// (`+` is a space; a `%` not followed by two hex digits stays as it is; bytes that are
/// not UTF-8 become U+FFFD, so such a token reads as damaged, not as missing).
pub(crate) fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

// ---------------------------------------------------------------------------------
// Privacy under a link

/// The private strings of a schedule: its members' e-mails, its absences' reasons,
/// and the e-mails of the users who have access to it.
#[derive(Clone, Debug, Default)]
pub struct Secrets {
    items: Vec<String>,
}

impl Secrets {
    pub fn of(state: Option<&Schedule>, users: &[User]) -> Secrets {
        let mut items = state.map(schedule_secrets).unwrap_or_default();
        items.extend(users.iter().map(|u| u.email.clone()));
        Secrets::from_strings(items)
    }

    fn from_strings(items: Vec<String>) -> Secrets {
        let mut items: Vec<String> = items
            .into_iter()
            .map(|s| s.trim().to_owned())
            // Shorter strings would blank ordinary words of the text; the structured
            // fields that hold them are removed whatever their length.
            .filter(|s| s.chars().count() >= 3)
            .collect();
        // Longest first, so a secret containing another is replaced whole.
        items.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        items.dedup();
        Secrets { items }
    }
}

/// A schedule's members' e-mails and absences' reasons.
fn schedule_secrets(s: &Schedule) -> Vec<String> {
    let mut items: Vec<String> = s.members.iter().filter_map(|m| m.email.clone()).collect();
    items.extend(s.absences.iter().map(|a| a.reason.clone()));
    items
}

/// The private strings of recently used schedules, by rank: every change of e-mails or
/// reasons is a journalled write, so a schedule's strings change only with its rank,
/// and a view polling a large schedule does not reload it for each call.
#[derive(Clone, Debug, Default)]
pub struct SecretsCache {
    by_schedule: Arc<Mutex<HashMap<i64, Known>>>,
}

/// A schedule's private strings and the rank they were read at.
type Known = (i64, Arc<Vec<String>>);

/// Schedules kept; past it the cache starts over (a few views at a time is the use).
const CACHE_SCHEDULES: usize = 64;

impl SecretsCache {
    /// The strings of `schedule` at `rank`, if known.
    pub fn get(&self, schedule: i64, rank: i64) -> Option<Arc<Vec<String>>> {
        let map = self.by_schedule.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&schedule)
            .filter(|(r, _)| *r == rank)
            .map(|(_, v)| Arc::clone(v))
    }

    /// Remembers the strings of `state`, read at `rank`.
    pub fn put(&self, schedule: i64, rank: i64, state: &Schedule) -> Arc<Vec<String>> {
        let strings = Arc::new(schedule_secrets(state));
        let mut map = self.by_schedule.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= CACHE_SCHEDULES && !map.contains_key(&schedule) {
            map.clear();
        }
        map.insert(schedule, (rank, Arc::clone(&strings)));
        strings
    }

    /// The secrets of a schedule's strings and its users.
    pub fn secrets(strings: &[String], users: &[User]) -> Secrets {
        let mut items = strings.to_vec();
        items.extend(users.iter().map(|u| u.email.clone()));
        Secrets::from_strings(items)
    }
}

/// The structured keys that hold private data.
const PRIVATE_KEYS: [&str; 4] = ["email", "emails", "reason", "reasons"];

/// Removes e-mails and absence reasons from an answer given under a link: the
/// structured fields that hold them, then every occurrence of the schedule's private
/// strings and of anything shaped like an e-mail address in the texts, and the
/// "— reason: …" tails of absence lists.
pub fn scrub_reply(reply: &mut Reply, secrets: &Secrets, lang: Lang) {
    reply.text = scrub_text(&reply.text, secrets, lang);
    scrub_value(&mut reply.structured, secrets, lang);
    // `_meta` holds texts for the view (the before/after's change list): the same rule.
    scrub_value(&mut reply.meta, secrets, lang);
}

fn scrub_value(v: &mut Value, secrets: &Secrets, lang: Lang) {
    match v {
        Value::Object(map) => {
            map.retain(|k, _| !PRIVATE_KEYS.contains(&k.as_str()));
            for (_, item) in map.iter_mut() {
                scrub_value(item, secrets, lang);
            }
        }
        Value::Array(items) => {
            for item in items {
                scrub_value(item, secrets, lang);
            }
        }
        Value::String(s) => {
            let clean = scrub_text(s, secrets, lang);
            if clean != *s {
                *s = clean;
            }
        }
        _ => {}
    }
}

fn scrub_text(text: &str, secrets: &Secrets, lang: Lang) -> String {
    let hidden = tr(lang, "(masqué)", "(hidden)");
    // Absence lists end a line with " — motif : …" / " — reason: …".
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let cut = [" — motif\u{a0}: ", " — reason: "]
            .iter()
            .filter_map(|tail| line.find(tail))
            .min();
        out.push_str(cut.map_or(line, |at| &line[..at]));
    }
    let mut out = without_emails(&out, &hidden);
    for secret in &secrets.items {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), &hidden);
        }
    }
    // "Name <owner@localhost>": an address without a dot is only found as a secret.
    out.replace(&format!(" <{hidden}>"), "")
}

/// Replaces each word shaped like an e-mail address (`x@y.z`) with `hidden`, or drops
/// it with its brackets when written " <x@y.z>".
fn without_emails(text: &str, hidden: &str) -> String {
    let is_email_char =
        |c: char| c.is_alphanumeric() || matches!(c, '.' | '_' | '%' | '+' | '-' | '@' | '\'');
    // The spans [start, end) of the words made of e-mail characters.
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (is_email_char(c) && i < text.len(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for (s, e) in spans {
        let word = &text[s..e];
        let looks = word.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && domain.contains('.') && !domain.contains('@')
        });
        if !looks {
            continue;
        }
        if text[..s].ends_with(" <") && text[e..].starts_with('>') && s - 2 >= done {
            out.push_str(&text[done..s - 2]);
            done = e + 1;
        } else {
            out.push_str(&text[done..s]);
            out.push_str(hidden);
            done = e;
        }
    }
    out.push_str(&text[done..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicI64, Ordering};

    use crate::planning::Clock;

    /// A clock the test moves.
    #[derive(Debug)]
    struct TestClock(AtomicI64);

    impl Clock for TestClock {
        fn now_ms(&self) -> i64 {
            self.0.load(Ordering::SeqCst)
        }
    }

    impl TestClock {
        fn advance(&self, ms: i64) {
            self.0.fetch_add(ms, Ordering::SeqCst);
        }
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("palmaplan-embed-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn grant(role: Role, editable: bool) -> Grant {
        Grant {
            schedule: 7,
            user: 3,
            role,
            token_can_write: true,
            editable,
            credential: Some(5),
        }
    }

    #[test]
    fn base64url_round_trips_and_is_strict() {
        for n in 0..70u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37).wrapping_add(n)).collect();
            let s = b64url_encode(&bytes);
            assert!(!s.contains('=') && !s.contains('+') && !s.contains('/'));
            assert_eq!(b64url_decode(&s).as_deref(), Some(&bytes[..]), "{s}");
        }
        assert_eq!(b64url_encode(b"\xfb\xff"), "-_8");
        assert_eq!(b64url_encode(b"Man"), "TWFu");
        assert_eq!(b64url_decode("TWE"), Some(b"Ma".to_vec()));
        // Unused low bits set: another spelling of "Ma", refused.
        assert_eq!(b64url_decode("TWF"), None);
        assert_eq!(b64url_decode("TQ"), Some(b"M".to_vec()));
        assert_eq!(b64url_decode("TR"), None);
        assert_eq!(b64url_decode("T"), None, "a lone character is no byte");
        assert_eq!(b64url_decode("TWE="), None, "no padding");
        assert_eq!(b64url_decode("TW+u"), None, "not the url alphabet");
        assert_eq!(b64url_decode(""), Some(vec![]));
    }

    /// The base64url coder links were written with before the `base64` crate: links
    /// already given out must keep opening, and nothing it refused may open now.
    mod before {
        use palmaplan_model::idset::{ALPHABET, sextet};

        pub(super) fn encode(bytes: &[u8]) -> String {
            let mut out = String::new();
            for chunk in bytes.chunks(3) {
                let b = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
                let n = (b(0) << 16) | (b(1) << 8) | b(2);
                for i in 0..=chunk.len() {
                    out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
                }
            }
            out
        }

        pub(super) fn decode(s: &str) -> Option<Vec<u8>> {
            let s = s.as_bytes();
            if s.len() % 4 == 1 {
                return None;
            }
            let mut out = Vec::new();
            for chunk in s.chunks(4) {
                let mut n = 0u32;
                for (i, &c) in chunk.iter().enumerate() {
                    n |= u32::from(sextet(c)?) << (18 - 6 * i);
                }
                let bytes = chunk.len() - 1;
                for i in 0..bytes {
                    out.push((n >> (16 - 8 * i)) as u8);
                }
                if n & ((1u32 << (24 - 8 * bytes)) - 1) != 0 {
                    return None;
                }
            }
            Some(out)
        }
    }

    mod same_as_before {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

            #[test]
            fn encodes_the_same(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
                prop_assert_eq!(b64url_encode(&bytes), before::encode(&bytes));
            }

            #[test]
            fn accepts_exactly_what_it_accepted(s in "[A-Za-z0-9_=+/.-]{0,12}") {
                prop_assert_eq!(b64url_decode(&s), before::decode(&s), "{}", s);
            }
        }

        #[test]
        fn a_link_signed_before_still_opens() {
            let embed = Embed::new(&dir("before"), "http://h");
            let claims = Claims::for_grant(&grant(Role::Editor, true), 5);
            let payload = before::encode(&serde_json::to_vec(&claims).unwrap());
            let signature = embed.sign(&payload).unwrap();
            let token = format!("{payload}.{}", before::encode(&signature));
            assert_eq!(embed.verify(&token, "7", 10), Ok(claims));
        }
    }

    #[test]
    fn queries_are_escaped_and_read() {
        assert_eq!(
            query_escape("member:Thomas -status:done é~"),
            "member%3AThomas%20-status%3Adone%20%C3%A9~"
        );
        assert_eq!(query_escape("a+b&c=d/e"), "a%2Bb%26c%3Dd%2Fe");
        let value = |q: &str| query_param(Some(q), "v");
        assert_eq!(
            value("v=member%3AThomas+x%20%C3%A9").as_deref(),
            Some("member:Thomas x é")
        );
        // What escaping writes, reading gives back.
        for s in ["member:Thomas -status:done é", "a+b&c=d", "100%", " ~ "] {
            assert_eq!(value(&format!("v={}", query_escape(s))).as_deref(), Some(s));
        }
        // A broken escape stays as written; bytes that are not UTF-8 are replaced.
        assert_eq!(value("v=%zz").as_deref(), Some("%zz"));
        assert_eq!(value("v=%4").as_deref(), Some("%4"));
        assert_eq!(value("v=%ff").as_deref(), Some("\u{fffd}"));
        assert_eq!(
            query_param(Some("a=1&t=abc.def&b"), "t").as_deref(),
            Some("abc.def")
        );
        assert_eq!(
            query_param(Some("t=first&t=second"), "t").as_deref(),
            Some("first")
        );
        assert_eq!(query_param(Some("a=1&b"), "b").as_deref(), Some(""));
        assert_eq!(query_param(Some("a=1"), "t"), None);
        assert_eq!(query_param(Some(""), "t"), None);
        assert_eq!(query_param(None, "t"), None);
    }

    #[test]
    fn the_secret_is_created_once_private_and_reused() {
        let d = dir("key");
        let a = Embed::new(&d, "http://127.0.0.1:4785/");
        assert_eq!(a.public_url(), "http://127.0.0.1:4785");
        let t = a.issue(&grant(Role::Editor, false), 1000).unwrap();
        let bytes = std::fs::read(a.key_path()).unwrap();
        assert_eq!(bytes.len(), 32);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(a.key_path())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Another server on the same folder (a restart, a stdio process) reads it.
        let b = Embed::new(&d, "http://example.org");
        assert_eq!(b.verify(&t.token, "7", 2000).unwrap(), t.claims);
        assert_eq!(std::fs::read(b.key_path()).unwrap(), bytes);
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from(KEY_FILE)]);
        // Another server's key does not verify it.
        let other = Embed::new(&dir("key-other"), "http://x");
        assert_eq!(other.verify(&t.token, "7", 2000), Err(LinkError::Tampered));
        // A damaged key file is a clear error, not a panic nor a silent new key.
        std::fs::write(a.key_path(), b"short").unwrap();
        let c = Embed::new(&d, "http://x");
        let e = c.issue(&grant(Role::Editor, false), 0).unwrap_err();
        assert_eq!(e.code(), Code::LinkKeyUnavailable);
        assert!(
            e.message(Lang::En).contains("not a key of 32 bytes"),
            "{}",
            e.message(Lang::En)
        );
        assert_eq!(e.status(), StatusCode::SERVICE_UNAVAILABLE);
    }

    #[test]
    fn a_link_works_until_exactly_one_hour() {
        let clock = TestClock(AtomicI64::new(1_800_000_000_000));
        let embed = Embed::new(&dir("expiry"), "http://h");
        let t = embed
            .issue(&grant(Role::Editor, true), clock.now_ms())
            .unwrap();
        assert_eq!(t.claims.expires_at - t.claims.issued_at, LINK_LIFETIME_MS);
        assert!(t.token.len() < 300, "{}", t.token.len());
        assert_eq!(
            embed.verify(&t.token, "7", clock.now_ms()).unwrap(),
            t.claims
        );
        clock.advance(LINK_LIFETIME_MS - 1);
        assert!(embed.verify(&t.token, "7", clock.now_ms()).is_ok());
        clock.advance(1);
        let e = embed.verify(&t.token, "7", clock.now_ms()).unwrap_err();
        assert_eq!(
            e,
            LinkError::Expired {
                at_ms: t.claims.expires_at
            }
        );
        assert_eq!(e.status(), StatusCode::UNAUTHORIZED);
        assert!(
            e.message(Lang::Fr).starts_with(
                "Ce lien a expiré (2027-01-15 09:00 UTC)\u{a0}: il est valable une heure"
            ),
            "{}",
            e.message(Lang::Fr)
        );
        assert!(e.message(Lang::En).contains("does not renew"));
        assert_eq!(e.title(Lang::Fr), "Ce lien a expiré");
        clock.advance(1_000_000);
        assert!(matches!(
            embed.verify(&t.token, "7", clock.now_ms()),
            Err(LinkError::Expired { .. })
        ));
    }

    #[test]
    fn any_changed_byte_is_refused() {
        let embed = Embed::new(&dir("tamper"), "http://h");
        let t = embed.issue(&grant(Role::Owner, true), 5).unwrap();
        let original = t.token.as_bytes().to_vec();
        for i in 0..original.len() {
            for replacement in [b'A', b'w', b'-', b'_', b'.', b'%', b'0'] {
                if original[i] == replacement {
                    continue;
                }
                let mut bytes = original.clone();
                bytes[i] = replacement;
                let changed = String::from_utf8(bytes).unwrap();
                let e = embed.verify(&changed, "7", 10).unwrap_err();
                assert!(
                    matches!(e, LinkError::Tampered | LinkError::Malformed),
                    "byte {i} -> {}: {e:?}",
                    char::from(replacement)
                );
            }
        }
        // A payload re-signed by nobody: the claims of an owner, editable, far future.
        let (payload, sig) = t.token.split_once('.').unwrap();
        let mut claims = t.claims.clone();
        claims.expires_at = i64::MAX;
        let forged = format!(
            "{}.{sig}",
            b64url_encode(&serde_json::to_vec(&claims).unwrap())
        );
        assert_eq!(embed.verify(&forged, "7", 10), Err(LinkError::Tampered));
        // Cut, doubled, empty, garbage.
        assert_eq!(embed.verify(payload, "7", 10), Err(LinkError::Malformed));
        assert_eq!(
            embed
                .verify(&format!("{}x", t.token), "7", 10)
                .unwrap_err()
                .code(),
            Code::MalformedLink
        );
        assert_eq!(
            embed.verify(&format!("{}.{sig}", t.token), "7", 10),
            Err(LinkError::Malformed)
        );
        assert_eq!(embed.verify("", "7", 10), Err(LinkError::Missing));
        assert_eq!(
            embed.verify(&"a".repeat(5000), "7", 10),
            Err(LinkError::Malformed)
        );
        let e = LinkError::Tampered;
        assert!(
            e.message(Lang::Fr).contains("a été modifié"),
            "{}",
            e.message(Lang::Fr)
        );
        assert!(e.message(Lang::En).contains("altered"));
        assert!(
            embed.verify(&t.token, "7", 10).is_ok(),
            "the original still works"
        );
    }

    #[test]
    fn a_link_opens_only_its_schedule() {
        let embed = Embed::new(&dir("schedule"), "http://h");
        let t = embed.issue(&grant(Role::Viewer, false), 0).unwrap();
        let e = embed.verify(&t.token, "8", 1).unwrap_err();
        assert_eq!(
            e,
            LinkError::WrongSchedule {
                link: 7,
                asked: "8".into()
            }
        );
        assert_eq!(e.status(), StatusCode::FORBIDDEN);
        assert!(
            e.message(Lang::Fr)
                .contains("ouvre le planning 7, pas le planning 8")
        );
        assert!(embed.verify(&t.token, "S/4HANA", 1).is_err());
        assert!(embed.verify(&t.token, " 7 ", 1).is_ok());
        assert_eq!(
            embed.url(
                7,
                &t.token,
                &[("view", "kanban".into()), ("filter", "a b".into())]
            ),
            format!("http://h/embed/7?t={}&view=kanban&filter=a%20b", t.token)
        );
    }

    #[test]
    fn editable_only_when_asked_and_allowed_and_never_above_the_role() {
        let cases = [
            // role, token writes, asked, -> editable, cap
            (Role::Viewer, true, true, false, Role::Viewer),
            (Role::Editor, true, false, false, Role::Viewer),
            (Role::Editor, true, true, true, Role::Editor),
            (Role::Owner, true, true, true, Role::Owner),
            (Role::Owner, false, true, false, Role::Viewer),
        ];
        for (role, writes, asked, editable, cap) in cases {
            let g = Grant {
                token_can_write: writes,
                ..grant(role, asked)
            };
            let c = Claims::for_grant(&g, 0);
            assert_eq!((c.editable, c.cap), (editable, cap), "{g:?}");
            assert!(c.cap <= role);
        }
    }

    #[test]
    fn writes_need_an_editable_link_and_a_current_role() {
        let embed = Embed::new(&dir("use"), "http://h");
        let ro = embed.issue(&grant(Role::Owner, false), 0).unwrap().claims;
        let e = ro.check_write("move_periods").unwrap_err();
        assert_eq!(e.code(), Code::ReadOnlyLink);
        assert!(
            e.message(Lang::Fr)
                .contains("lecture seule\u{a0}: «\u{a0}move_periods\u{a0}»"),
            "{}",
            e.message(Lang::Fr)
        );
        assert!(e.message(Lang::En).contains("read-only: “move_periods”"));
        assert_eq!(ro.effective_role(Some(Role::Owner)), Ok(Role::Viewer));
        assert_eq!(ro.describe(Lang::Fr), "en lecture seule");

        let rw = embed.issue(&grant(Role::Editor, true), 0).unwrap().claims;
        assert_eq!(rw.check_write("move_periods"), Ok(()));
        assert_eq!(rw.effective_role(Some(Role::Editor)), Ok(Role::Editor));
        // Promoted since: the link stays an editor's.
        assert_eq!(rw.effective_role(Some(Role::Owner)), Ok(Role::Editor));
        // Demoted since: a viewer's.
        assert_eq!(rw.effective_role(Some(Role::Viewer)), Ok(Role::Viewer));
        // Access removed: the link is dead.
        let e = rw.effective_role(None).unwrap_err();
        assert_eq!(e, LinkError::NoAccess);
        assert!(e.message(Lang::Fr).contains("n'a plus accès"));
        assert_eq!(rw.describe(Lang::En), "editable (editor role)");
    }

    #[test]
    fn answers_under_a_link_lose_emails_and_reasons() {
        let s = palmaplan_model::demo::s4hana_migration();
        let users = [
            User {
                id: 9,
                name: "Sam".into(),
                email: "sam@example.org".into(),
            },
            User {
                id: 10,
                name: "Sam".into(),
                email: "sam@localhost".into(),
            },
        ];
        let secrets = Secrets::of(Some(&s), &users);
        let email = s.members.iter().find_map(|m| m.email.clone()).unwrap();
        let reason = s.absences[0].reason.clone();
        let mut reply = Reply::ok(
            format!(
                "- 1 — Thomas <{email}> — 2 absences\n- 31 — 2026-11-20 — motif\u{a0}: {reason}\nsam@example.org wrote; also x@y.io\nnote: {reason}!\n- Sam <sam@localhost>"
            ),
            serde_json::json!({
                "members": [{"id": 1, "email": email, "name": "Thomas"}],
                "absences": [{"id": 31, "reason": reason}],
                "note": format!("by sam@example.org for {reason}"),
            }),
        );
        scrub_reply(&mut reply, &secrets, Lang::Fr);
        let all = format!("{} {}", reply.text, reply.structured);
        assert!(!all.contains('@'), "{all}");
        assert!(!all.contains(&reason), "{all}");
        assert!(
            reply
                .text
                .starts_with("- 1 — Thomas — 2 absences\n- 31 — 2026-11-20\n"),
            "{}",
            reply.text
        );
        assert!(
            reply.text.contains("(masqué) wrote; also (masqué)"),
            "{}",
            reply.text
        );
        assert!(reply.text.ends_with("\n- Sam"), "{}", reply.text);
        assert_eq!(
            reply.structured["members"][0],
            serde_json::json!({"id": 1, "name": "Thomas"})
        );
        assert_eq!(
            reply.structured["absences"][0],
            serde_json::json!({"id": 31})
        );
        // Ordinary texts are untouched.
        let mut plain = Reply::ok(
            "Planning «\u{a0}S/4HANA Migration\u{a0}» — 6 blocs.",
            serde_json::json!({"rank": 2}),
        );
        let before = plain.clone();
        scrub_reply(&mut plain, &secrets, Lang::En);
        assert_eq!(plain, before);
    }

    /// Fuzzing the link reader: a real link mutated byte by byte, cut, extended, and
    /// arbitrary strings. Nothing panics, and nothing but the untouched link (or a
    /// mutation that leaves its bytes equal) is accepted. `PROPTEST_CASES=100000`
    /// runs it longer by hand.
    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        /// proptest's default case count (256), or `PROPTEST_CASES` for a longer run.
        fn budget() -> ProptestConfig {
            ProptestConfig {
                failure_persistence: None,
                ..ProptestConfig::default()
            }
        }

        #[derive(Clone, Debug)]
        enum Edit {
            Flip(usize, u8),
            Cut(usize),
            Insert(usize, char),
            Swap(usize, usize),
        }

        fn edits() -> impl Strategy<Value = Vec<Edit>> {
            proptest::collection::vec(
                prop_oneof![
                    (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Flip(i, b)),
                    any::<usize>().prop_map(Edit::Cut),
                    (any::<usize>(), any::<char>()).prop_map(|(i, c)| Edit::Insert(i, c)),
                    (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Swap(a, b)),
                ],
                1..6,
            )
        }

        fn apply(token: &str, edits: &[Edit]) -> String {
            let mut bytes = token.as_bytes().to_vec();
            for e in edits {
                let n = bytes.len().max(1);
                match *e {
                    Edit::Flip(i, b) => {
                        if let Some(x) = bytes.get_mut(i % n) {
                            *x = b;
                        }
                    }
                    Edit::Cut(i) => bytes.truncate(i % n),
                    Edit::Insert(i, c) => {
                        let mut buf = [0u8; 4];
                        let at = (i % n).min(bytes.len());
                        for (k, b) in c.encode_utf8(&mut buf).bytes().enumerate() {
                            bytes.insert(at + k, b);
                        }
                    }
                    Edit::Swap(a, b) => {
                        if !bytes.is_empty() {
                            let len = bytes.len();
                            bytes.swap(a % len, b % len);
                        }
                    }
                }
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }

        proptest! {
            #![proptest_config(budget())]

            #[test]
            fn mutated_links_are_refused_and_never_panic(edits in edits(), junk in ".{0,300}") {
                let d = dir("fuzz");
                let links = Embed::new(&d, "http://127.0.0.1:4785");
                let issued = links.issue(&grant(Role::Editor, true), 1_000).unwrap();
                let mutated = apply(&issued.token, &edits);
                let verdict = links.verify(&mutated, "7", 2_000);
                // Whitespace around a pasted token is trimmed on purpose: the same token.
                if mutated.trim() == issued.token {
                    prop_assert!(verdict.is_ok());
                } else {
                    prop_assert!(verdict.is_err(), "{mutated} accepted");
                }
                prop_assert!(links.verify(&junk, "7", 2_000).is_err());
                let _ = query_param(Some(&junk), "t");
            }
        }
    }
}
