//! Client ID Metadata Documents (MCP authorization 2025-11-25; the IETF draft
//! `draft-ietf-oauth-client-id-metadata-document`): a client whose `client_id` is an
//! https URL is not registered here; this server fetches that URL and reads the client's
//! metadata (name, redirect URIs) from the JSON document it serves.
//!
//! Fetching a URL that anyone may choose is a server-side request forgery risk, so the
//! fetch is fenced: https on the default port only, no user name, no fragment; the host
//! is resolved first and *every* address it resolves to must be public (not loopback,
//! private, link-local, unique-local, shared, documentation…), and the connection goes
//! to those checked addresses only (no second lookup an attacker's DNS could answer
//! differently); no redirect is followed; 5 s at most; 16 KiB at most.
//!
//! A document kept is stored as a client row (`oauth_clients`, its `created_at` the time
//! of the fetch), so grants refer to it as to a registered client, and it is fetched
//! again once it is older than [`CimdConfig::ttl_ms`].

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use palmaplan_model::Lang;
use serde_json::Value;

use crate::planning::tr;
use crate::storage::OAuthClient;

/// The largest document read; a bigger one is refused (client metadata is a few hundred
/// bytes: this only bounds what a hostile URL can make the server hold).
pub const MAX_DOCUMENT_BYTES: usize = 16 << 10;
/// How long a fetch may take, connection and body included.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a fetched document is used before it is fetched again.
pub const DOCUMENT_TTL_MS: i64 = 3_600_000;
/// The most redirect URIs a document may list (as a registration).
const MAX_REDIRECT_URIS: usize = 10;

/// How documents are fetched (fields so the tests can shorten the timeout).
#[derive(Clone, Debug)]
pub struct CimdConfig {
    pub timeout: Duration,
    pub max_bytes: usize,
    /// How long a document without caching headers is kept.
    pub ttl_ms: i64,
    /// The bounds of what a document's Cache-Control may ask ([`MIN_KEEP_MS`],
    /// [`MAX_KEEP_MS`]; fields so that the tests can see a document fetched again).
    pub min_keep_ms: i64,
    pub max_keep_ms: i64,
    /// **For tests only**: also accept `http://` and `https://` client ids on a
    /// loopback IP address, on any port (`http://127.0.0.1:PORT/…`), so that a test can
    /// serve a document without the internet. Off by default, and no command-line option or setting of the binary
    /// turns it on: only code that builds an [`crate::http::AppState`] can (the tests'
    /// harness). Private, link-local… addresses stay refused even then.
    pub test_allow_loopback_http: bool,
    /// The TLS settings of every fetch (built once: the root store is ~150 certificates).
    tls: Arc<rustls::ClientConfig>,
}

/// The TLS settings of the fetches, trusting `roots`.
fn tls_trusting(roots: rustls::RootCertStore) -> Arc<rustls::ClientConfig> {
    Arc::new(
        rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("ring supports TLS 1.2 and 1.3")
        .with_root_certificates(roots)
        .with_no_client_auth(),
    )
}

impl CimdConfig {
    /// **For tests only**: trust this certificate authority (DER) instead of the
    /// Mozilla roots, so that a test's loopback site is fetched over real TLS. No
    /// option of the binary calls it.
    pub fn test_trust_only(&mut self, ca_der: &[u8]) -> Result<(), rustls::Error> {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(rustls::pki_types::CertificateDer::from(ca_der.to_vec()))?;
        self.tls = tls_trusting(roots);
        Ok(())
    }
}

impl Default for CimdConfig {
    fn default() -> CimdConfig {
        let tls = tls_trusting(rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        });
        CimdConfig {
            timeout: FETCH_TIMEOUT,
            max_bytes: MAX_DOCUMENT_BYTES,
            ttl_ms: DOCUMENT_TTL_MS,
            min_keep_ms: MIN_KEEP_MS,
            max_keep_ms: MAX_KEEP_MS,
            test_allow_loopback_http: false,
            tls,
        }
    }
}

/// Whether a `client_id` is meant as a metadata document's URL (registered ids are
/// `pcl_…`, never URLs).
pub fn is_document_id(client_id: &str) -> bool {
    let lower = client_id.get(..8).unwrap_or(client_id).to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://")
}

/// Whether connecting to this address could reach something that is not the public
/// internet: loopback, private (RFC 1918), shared (RFC 6598), link-local, unique-local,
/// multicast, documentation, benchmarking, reserved; for IPv6, whatever is not global
/// unicast, and the IPv4 address inside a mapped, compatible, NAT64 or 6to4 one is
/// checked as IPv4.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0 // "this network", 0.0.0.0 included
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 169 && b == 254) // link-local (cloud metadata services)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 168)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // documentation
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // documentation
        || (a == 203 && b == 0 && c == 113) // documentation
        || a >= 224) // multicast, reserved, broadcast
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    // IPv4 inside IPv6: judged by the IPv4 address it leads to.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    if s[..6] == [0; 6] {
        // ::/96 (IPv4-compatible, deprecated), :: and ::1 included.
        return false;
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        // NAT64 (RFC 6052): the IPv4 address in the last 32 bits.
        return is_public_v4(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            s[6] as u8,
            (s[7] >> 8) as u8,
            s[7] as u8,
        ));
    }
    if s[0] == 0x2002 {
        // 6to4: the IPv4 address in bits 16..48.
        return is_public_v4(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    // Global unicast is 2000::/3; within it, the special-purpose blocks.
    (s[0] & 0xe000) == 0x2000
        && !(s[0] == 0x2001 && s[1] < 0x0200) // 2001::/23: Teredo, ORCHID, benchmarking…
        && !(s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        && s[0] != 0x3fff // documentation (RFC 9637)
}

/// A client id URL checked before any connection: the host, the port to connect to,
/// and whether the host is an IP address.
#[derive(Debug)]
struct Target {
    url: url::Url,
    host: String,
    port: u16,
}

/// Why a fetch gave no document (put into words by [`fetch`]).
#[derive(Debug)]
enum Fetch {
    TooBig,
    Failed,
}

/// `GET` of the document over a connection to one of `addrs` (tried in order), https
/// (or the tests' loopback http); its status and body, at most `max_bytes` of it. A
/// redirect is answered as it is: nothing here follows one.
async fn get(config: &CimdConfig, t: &Target, addrs: &[SocketAddr]) -> Result<Answer, Fetch> {
    let tcp = tokio::net::TcpStream::connect(addrs)
        .await
        .map_err(|_| Fetch::Failed)?;
    if t.url.scheme() == "https" {
        let name = rustls::pki_types::ServerName::try_from(
            t.host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
        )
        .map_err(|_| Fetch::Failed)?;
        let tls = tokio_rustls::TlsConnector::from(config.tls.clone())
            .connect(name, tcp)
            .await
            .map_err(|_| Fetch::Failed)?;
        get_over(tls, t, config.max_bytes).await
    } else {
        get_over(tcp, t, config.max_bytes).await
    }
}

async fn get_over<S>(stream: S, t: &Target, max_bytes: usize) -> Result<Answer, Fetch>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    use http_body_util::BodyExt as _;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|_| Fetch::Failed)?;
    let host = match t.url.port() {
        Some(p) => format!("{}:{p}", t.host),
        None => t.host.clone(),
    };
    let path = match t.url.query() {
        Some(q) => format!("{}?{q}", t.url.path()),
        None => t.url.path().to_owned(),
    };
    let request = hyper::Request::get(path)
        .header(hyper::header::HOST, host)
        .header(hyper::header::ACCEPT, "application/json")
        .header(
            hyper::header::USER_AGENT,
            concat!("PalmaPlan/", env!("CARGO_PKG_VERSION")),
        )
        .body(http_body_util::Empty::<hyper::body::Bytes>::new())
        .map_err(|_| Fetch::Failed)?;
    // The connection is driven beside the request, in this same future (no task of
    // its own): when the deadline drops the fetch, the socket goes with it.
    let work = async move {
        let answer = sender
            .send_request(request)
            .await
            .map_err(|_| Fetch::Failed)?;
        let status = answer.status();
        let cache = headers::HeaderMapExt::typed_get::<headers::CacheControl>(answer.headers());
        let declared = answer
            .headers()
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if declared.is_some_and(|n| n > max_bytes as u64) {
            return Err(Fetch::TooBig);
        }
        // Read frame by frame: a length left out (chunked) or false is not believed.
        let mut body = answer.into_body();
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|_| Fetch::Failed)?;
            if let Some(chunk) = frame.data_ref() {
                if bytes.len() + chunk.len() > max_bytes {
                    return Err(Fetch::TooBig);
                }
                bytes.extend_from_slice(chunk);
            }
        }
        Ok(Answer {
            status,
            body: bytes,
            cache,
        })
    };
    tokio::pin!(work);
    tokio::select! {
        r = &mut work => r,
        // Its end may come before the last frame is taken: those are buffered.
        _ = connection => work.await,
    }
}

/// Why a document cannot be used, in the page's language.
pub type Refusal = String;

fn check_url(client_id: &str, test_loopback: bool, lang: Lang) -> Result<Target, Refusal> {
    let bad = |fr: &str, en: &str| {
        let shown = crate::oauth::shortened(client_id);
        tr(
            lang,
            format!(
                "L'identifiant de client «\u{a0}{shown}\u{a0}» n'est pas une adresse de document utilisable\u{a0}: {fr}"
            ),
            format!("The client id “{shown}” is not a usable document address: {en}"),
        )
    };
    let url = url::Url::parse(client_id).map_err(|_| {
        bad(
            "ce n'est pas une adresse absolue.",
            "it is not an absolute URL.",
        )
    })?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad(
            "elle contient un nom d'utilisateur ou un mot de passe.",
            "it carries a user name or password.",
        ));
    }
    if url.fragment().is_some() {
        return Err(bad("elle a un fragment (#…).", "it has a fragment (#…)."));
    }
    if url.path() == "/" || url.path().is_empty() {
        return Err(bad(
            "elle doit avoir un chemin (https://exemple.fr/client.json).",
            "it must have a path (https://example.com/client.json).",
        ));
    }
    let host = url.host().map(|h| h.to_owned());
    let loopback_ip = matches!(&host, Some(url::Host::Ipv4(ip)) if ip.is_loopback())
        || matches!(&host, Some(url::Host::Ipv6(ip)) if ip.is_loopback());
    match url.scheme() {
        "https" if url.port().is_none() => {}
        "https" if test_loopback && loopback_ip => {}
        "https" => {
            return Err(bad(
                "seul le port par défaut de https (443) est accepté.",
                "only https's default port (443) is accepted.",
            ));
        }
        "http" if test_loopback && loopback_ip => {}
        _ => {
            return Err(bad(
                "seules les adresses https sont acceptées.",
                "only https addresses are accepted.",
            ));
        }
    }
    let Some(host) = url.host_str().map(str::to_owned) else {
        return Err(bad("elle n'a pas d'hôte.", "it has no host."));
    };
    let port = url.port_or_known_default().unwrap_or(443);
    Ok(Target { url, host, port })
}

/// The addresses the host resolves to, each checked; refused if any is not public (an
/// attacker's name could resolve to one public address and one internal one).
async fn checked_addresses(
    t: &Target,
    test_loopback: bool,
    lang: Lang,
) -> Result<Vec<SocketAddr>, Refusal> {
    let host = t.host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<SocketAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, t.port)],
        Err(_) => tokio::net::lookup_host((host, t.port))
            .await
            .map_err(|_| {
                tr(
                    lang,
                    format!(
                        "Le nom «\u{a0}{host}\u{a0}» de l'identifiant de client ne se résout pas."
                    ),
                    format!("The client id's host “{host}” does not resolve."),
                )
            })?
            .collect(),
    };
    if addrs.is_empty() {
        return Err(tr(
            lang,
            format!("Le nom «\u{a0}{host}\u{a0}» de l'identifiant de client n'a pas d'adresse."),
            format!("The client id's host “{host}” has no address."),
        ));
    }
    for a in &addrs {
        let allowed = is_public(a.ip()) || (test_loopback && a.ip().is_loopback());
        if !allowed {
            return Err(tr(
                lang,
                format!(
                    "L'identifiant de client mène à l'adresse {} qui n'est pas publique\u{a0}: PalmaPlan ne va chercher de document que sur Internet.",
                    a.ip()
                ),
                format!(
                    "The client id leads to {}, which is not a public address: PalmaPlan fetches documents from the internet only.",
                    a.ip()
                ),
            ));
        }
    }
    Ok(addrs)
}

/// Fetches and checks the document of `client_id`; the client it describes, stamped
/// `now_ms`.
pub async fn fetch(
    config: &CimdConfig,
    client_id: &str,
    now_ms: i64,
    lang: Lang,
) -> Result<OAuthClient, Refusal> {
    let test_loopback = config.test_allow_loopback_http;
    let target = check_url(client_id, test_loopback, lang)?;
    let addrs = checked_addresses(&target, test_loopback, lang).await?;
    let failed = |why_fr: String, why_en: String| {
        let shown = crate::oauth::shortened(client_id);
        tr(
            lang,
            format!(
                "Le document du client «\u{a0}{shown}\u{a0}» n'a pas pu être lu\u{a0}: {why_fr}"
            ),
            format!("The document of the client “{shown}” could not be read: {why_en}"),
        )
    };
    let secs = config.timeout.as_secs_f32();
    let slow = || {
        failed(
            format!("pas de réponse en {secs} s."),
            format!("no answer within {secs} s."),
        )
    };
    // One deadline for all of it, connection, TLS, headers and body: a server that
    // trickles its answer cannot hold the request longer.
    let answer = tokio::time::timeout(config.timeout, get(config, &target, &addrs))
        .await
        .map_err(|_| slow())?;
    let Answer {
        status,
        body,
        cache,
    } = match answer {
        Ok(a) => a,
        Err(Fetch::TooBig) => {
            return Err(failed(
                format!("il dépasse {} octets.", config.max_bytes),
                format!("it is over {} bytes.", config.max_bytes),
            ));
        }
        Err(Fetch::Failed) => {
            return Err(failed(
                "la connexion ou la réponse a échoué.".into(),
                "the connection or the answer failed.".into(),
            ));
        }
    };
    if status.is_redirection() {
        return Err(failed(
            format!("l'adresse redirige ({status}), et PalmaPlan ne suit pas les redirections."),
            format!("the address redirects ({status}), and PalmaPlan follows no redirects."),
        ));
    }
    if status != hyper::StatusCode::OK {
        return Err(failed(
            format!("le serveur a répondu {status}."),
            format!("the server answered {status}."),
        ));
    }
    let mut client = client_from_document(client_id, &body, now_ms, lang)?;
    client.kept_until = Some(now_ms.saturating_add(keep_ms(cache.as_ref(), config)));
    Ok(client)
}

/// What one GET answered.
struct Answer {
    status: hyper::StatusCode,
    body: Vec<u8>,
    cache: Option<headers::CacheControl>,
}

/// The least time a document is kept: one authorization (its page, its answer, the
/// token exchange) must not fetch it three times, whatever its headers say.
pub const MIN_KEEP_MS: i64 = 60_000;
/// The most: a client's name and redirect addresses are read again at least daily.
pub const MAX_KEEP_MS: i64 = 24 * 3_600_000;

/// How long a document is kept: its `Cache-Control` (`max-age`; `no-store` and
/// `no-cache` the least), else `config.ttl_ms`; always within the config's bounds
/// ([`MIN_KEEP_MS`] and [`MAX_KEEP_MS`] by default).
pub fn keep_ms(cache: Option<&headers::CacheControl>, config: &CimdConfig) -> i64 {
    let asked = match cache {
        Some(c) if c.no_store() || c.no_cache() => config.min_keep_ms,
        Some(c) => c.max_age().map_or(config.ttl_ms, |a| {
            i64::try_from(a.as_millis()).unwrap_or(i64::MAX)
        }),
        None => config.ttl_ms,
    };
    asked.clamp(
        config.min_keep_ms,
        config.max_keep_ms.max(config.min_keep_ms),
    )
}

/// Checks a document against the URL it came from.
pub fn client_from_document(
    client_id: &str,
    body: &[u8],
    now_ms: i64,
    lang: Lang,
) -> Result<OAuthClient, Refusal> {
    let invalid = |fr: String, en: String| {
        let shown = crate::oauth::shortened(client_id);
        tr(
            lang,
            format!("Le document du client «\u{a0}{shown}\u{a0}» est refusé\u{a0}: {fr}"),
            format!("The document of the client “{shown}” is refused: {en}"),
        )
    };
    let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(body) else {
        return Err(invalid(
            "ce n'est pas un objet JSON.".into(),
            "it is not a JSON object.".into(),
        ));
    };
    // Exact comparison: a document served at one URL cannot speak for another client.
    if m.get("client_id").and_then(Value::as_str) != Some(client_id) {
        return Err(invalid(
            "son «\u{a0}client_id\u{a0}» n'est pas l'adresse d'où il vient.".into(),
            "its “client_id” is not the address it was fetched from.".into(),
        ));
    }
    let uris: Vec<String> = match m.get("redirect_uris") {
        Some(Value::Array(a)) if !a.is_empty() && a.len() <= MAX_REDIRECT_URIS => a
            .iter()
            .map(|u| u.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                invalid(
                    "«\u{a0}redirect_uris\u{a0}» doit être une liste d'adresses.".into(),
                    "“redirect_uris” must be an array of strings.".into(),
                )
            })?,
        _ => {
            return Err(invalid(
                format!(
                    "«\u{a0}redirect_uris\u{a0}» doit être une liste de 1 à {MAX_REDIRECT_URIS} adresses."
                ),
                format!("“redirect_uris” must be an array of 1 to {MAX_REDIRECT_URIS} URIs."),
            ));
        }
    };
    for uri in &uris {
        crate::oauth::check_redirect_uri(uri).map_err(|e| {
            invalid(
                "une adresse de retour n'est ni https ni http sur la boucle locale.".into(),
                format!("{e}."),
            )
        })?;
    }
    // Public clients only (PKCE is the proof): a document asking to authenticate with a
    // secret or a key is for a server this one is not.
    match m.get("token_endpoint_auth_method") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s == "none" => {}
        Some(other) => {
            return Err(invalid(
                format!(
                    "«\u{a0}token_endpoint_auth_method\u{a0}» vaut {other}, or seul «\u{a0}none\u{a0}» est pris en charge."
                ),
                format!("“token_endpoint_auth_method” is {other}; only “none” is supported."),
            ));
        }
    }
    let name: String = match m.get("client_name") {
        Some(Value::String(s)) => crate::oauth::cleaned_name(s),
        _ => String::new(),
    };
    Ok(OAuthClient {
        client_id: client_id.to_owned(),
        name,
        redirect_uris: uris,
        created_at: now_ms,
        kept_until: None,
    })
}

/// The host a person is shown on the consent page: who vouches for the document.
pub fn document_host(client_id: &str) -> Option<String> {
    url::Url::parse(client_id)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_document_is_kept_as_its_cache_control_says_within_bounds() {
        let config = CimdConfig::default();
        let keep = |value: Option<&str>| {
            let mut h = hyper::HeaderMap::new();
            if let Some(v) = value {
                h.insert(hyper::header::CACHE_CONTROL, v.parse().unwrap());
            }
            keep_ms(
                headers::HeaderMapExt::typed_get::<headers::CacheControl>(&h).as_ref(),
                &config,
            )
        };
        assert_eq!(keep(None), DOCUMENT_TTL_MS, "no header: an hour");
        assert_eq!(keep(Some("public, max-age=7200")), 7_200_000);
        assert_eq!(keep(Some("max-age=5")), MIN_KEEP_MS, "never under a minute");
        assert_eq!(
            keep(Some("max-age=604800")),
            MAX_KEEP_MS,
            "never over a day"
        );
        assert_eq!(keep(Some("no-store")), MIN_KEEP_MS);
        assert_eq!(keep(Some("no-cache, max-age=600")), MIN_KEEP_MS);
        assert_eq!(
            keep(Some("private")),
            DOCUMENT_TTL_MS,
            "no age given: the default"
        );
    }
    use super::*;

    fn public(s: &str) -> bool {
        is_public(s.parse().unwrap())
    }

    #[test]
    fn ipv4_non_public_ranges_are_refused() {
        for ip in [
            "0.0.0.0",
            "10.1.2.3",
            "100.64.0.1",
            "100.127.255.255",
            "127.0.0.1",
            "127.255.0.9",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(!public(ip), "{ip} is not public");
        }
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.169.0.1",
            "93.184.215.14",
        ] {
            assert!(public(ip), "{ip} is public");
        }
    }

    #[test]
    fn ipv6_non_public_ranges_are_refused() {
        for ip in [
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a00:1",
            "64:ff9b::7f00:1",
            "2002:7f00:1::1",
            "2002:c0a8:101::",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "2001::1",
            "2001:db8::1",
            "2001:10::1",
            "3fff::1",
            "100::1",
        ] {
            assert!(!public(ip), "{ip} is not public");
        }
        for ip in [
            "2606:4700:4700::1111",
            "2a00:1450:4007:80f::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            assert!(public(ip), "{ip} is public");
        }
    }

    #[test]
    fn only_https_urls_with_a_path_and_no_userinfo_fragment_or_port_pass() {
        for ok in [
            "https://app.example.com/oauth/client.json",
            "https://example.com/c",
        ] {
            assert!(check_url(ok, false, Lang::En).is_ok(), "{ok}");
        }
        for (bad, why) in [
            ("http://example.com/c.json", "only https"),
            ("http://127.0.0.1:8080/c.json", "only https"),
            ("https://example.com", "path"),
            ("https://example.com/", "path"),
            ("https://user@example.com/c", "user name"),
            ("https://u:p@example.com/c", "user name"),
            ("https://example.com/c#x", "fragment"),
            ("https://example.com:8443/c", "default port"),
            ("ftp://example.com/c", "only https"),
        ] {
            let e = check_url(bad, false, Lang::En).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
        // The tests' setting lets loopback http through, and nothing else.
        assert!(check_url("http://127.0.0.1:8080/c.json", true, Lang::En).is_ok());
        assert!(check_url("http://[::1]:8080/c.json", true, Lang::En).is_ok());
        assert!(check_url("http://localhost:8080/c.json", true, Lang::En).is_err());
        assert!(check_url("http://10.0.0.1:8080/c.json", true, Lang::En).is_err());
    }

    #[tokio::test]
    async fn every_resolved_address_is_checked() {
        // A literal address is checked without a lookup; the tests' setting admits
        // loopback and still not a private address.
        let t = |u: &str| check_url(u, true, Lang::En).unwrap();
        let t_https = |u: &str| check_url(u, false, Lang::En).unwrap();
        assert!(
            checked_addresses(&t_https("https://127.0.0.1/c"), false, Lang::En)
                .await
                .unwrap_err()
                .contains("not a public address")
        );
        assert!(
            checked_addresses(&t_https("https://[fd00::1]/c"), true, Lang::En)
                .await
                .is_err()
        );
        assert!(
            checked_addresses(&t("http://127.0.0.1:9/c"), true, Lang::En)
                .await
                .is_ok()
        );
        // `localhost` resolves (to loopback addresses only, without a network): refused.
        assert!(
            checked_addresses(&t_https("https://localhost/c"), false, Lang::En)
                .await
                .is_err()
        );
    }

    #[test]
    fn a_document_must_name_its_own_url_and_list_usable_redirect_uris() {
        let id = "https://app.example.com/client.json";
        let doc = |v: Value| client_from_document(id, v.to_string().as_bytes(), 7, Lang::En);
        let c = doc(serde_json::json!({
            "client_id": id,
            "client_name": "App\u{202e}ppa",
            "redirect_uris": ["https://app.example.com/cb", "http://127.0.0.1:3/cb"],
            "token_endpoint_auth_method": "none",
        }))
        .unwrap();
        assert_eq!(c.name, "Appppa", "format characters dropped");
        assert_eq!(c.redirect_uris.len(), 2);
        assert_eq!(c.created_at, 7);
        for (v, why) in [
            (
                serde_json::json!({"client_id": "https://app.example.com/other.json", "redirect_uris": ["https://a.example/cb"]}),
                "not the address",
            ),
            (
                serde_json::json!({"client_id": format!("{id}/"), "redirect_uris": ["https://a.example/cb"]}),
                "not the address",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://a.example/cb"]}),
                "not the address",
            ),
            (
                serde_json::json!({"client_id": id, "redirect_uris": []}),
                "redirect_uris",
            ),
            (serde_json::json!({"client_id": id}), "redirect_uris"),
            (
                serde_json::json!({"client_id": id, "redirect_uris": ["http://evil.example/cb"]}),
                "not loopback",
            ),
            (
                serde_json::json!({"client_id": id, "redirect_uris": ["https://a.example/cb"], "token_endpoint_auth_method": "client_secret_basic"}),
                "only “none”",
            ),
        ] {
            let e = doc(v.clone()).unwrap_err();
            assert!(e.contains(why), "{v}: {e}");
        }
        assert!(
            client_from_document(id, b"[1]", 0, Lang::En)
                .unwrap_err()
                .contains("JSON object")
        );
    }

    #[test]
    fn document_ids_are_urls() {
        assert!(is_document_id("https://a.example/c"));
        assert!(is_document_id("HTTP://a.example/c"));
        assert!(!is_document_id("pcl_0123"));
        assert!(!is_document_id("http"));
    }
}
