//! The embedded view: the one self-contained HTML file that the view build writes
//! (`view-wasm/dist/planning.html`: HTML, script and styles inline, nothing loaded
//! from elsewhere), compiled into the binary so a server always serves the view of its
//! own version.
//!
//! Two faces of the same bytes:
//! - the MCP Apps resource `ui://palmaplan/planning?v=<hash>` (`mcp` lists and reads
//!   it). The hash is the first 16 hex digits of the page's SHA-256: hosts cache a view
//!   by its URI, so a new build must get a new one. Older `?v=` URIs and the bare URI
//!   keep answering, with the current page: old conversations ask for them again;
//! - the page under `/embed/<id>?t=…` (`http` serves it), where the one tag
//!   `<meta name="palmaplan-mode" content="mcp">` becomes
//!   `<meta name="palmaplan-mode" content="embed" data-lang="fr|en">`: that is how the
//!   view knows it runs in a plain browser (it reads the schedule from its address and
//!   calls `POST /embed/<id>/call`) rather than under an MCP Apps host.
//!
//! - the page under `/app/schedules/<id>` (the web screen, `crate::web`), where the tag
//!   becomes `content="app"` with the session's anti-forgery token: the view calls
//!   `POST /app/schedules/<id>/call` under the person's session instead.
//!
//! The build must put that tag in the page exactly once. If it does not, that is a build
//! bug: the unit tests below fail on it, rather than the server at run time.
//!
//! The page carries the view as WebAssembly. Its JavaScript translation (for hosts whose
//! CSP refuses WebAssembly) would not fit in it: the build writes it beside the page
//! (`view-wasm/dist/wasm2js.txt`, gzip in base64), and the view's loader asks for it
//! through the view-only tool `get_view_code`, in [`PART_CHARS`] parts, naming the
//! build it needs (the page's `<meta name="palmaplan-translation">`, tested below).
//!
//! This module knows no transport: the MCP `_meta` and the HTTP headers live with
//! their adapters.

use std::sync::OnceLock;

use palmaplan_model::Lang;

/// The page, as the view build wrote it.
pub const HTML: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../view-wasm/dist/planning.html"
));

/// The view's JavaScript translation, gzip in base64, as the view build wrote it.
pub const TRANSLATION: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../view-wasm/dist/wasm2js.txt"
));

/// Characters of the translation per `get_view_code` answer: with its envelope, under
/// what a host carries in one tool result (the packer cuts the same way, and writes the
/// count into the page).
pub const PART_CHARS: usize = 100_000;

/// The translation's build: the first 16 hex digits of its text's SHA-256, which the
/// page names (a page only runs the code of its own build).
pub fn translation_build() -> &'static str {
    static BUILD: OnceLock<String> = OnceLock::new();
    BUILD.get_or_init(|| short_sha256(TRANSLATION))
}

/// How many parts the translation takes.
pub fn translation_parts() -> usize {
    TRANSLATION.len().div_ceil(PART_CHARS)
}

/// Part `i` of the translation (base64 is ASCII: any byte offset is a char boundary).
pub fn translation_part(i: usize) -> Option<&'static str> {
    let start = i.checked_mul(PART_CHARS)?;
    (start < TRANSLATION.len())
        .then(|| &TRANSLATION[start..(start + PART_CHARS).min(TRANSLATION.len())])
}

/// The first 16 hex digits of a text's SHA-256 (the named tokens' digest).
fn short_sha256(text: &str) -> String {
    crate::auth::token_hash(text)[..16].to_owned()
}

/// The tag that says "under an MCP Apps host"; the build writes it once.
pub const MCP_MARKER: &str = r#"<meta name="palmaplan-mode" content="mcp">"#;

/// The view resource's URI without its version.
pub const BASE_URI: &str = "ui://palmaplan/planning";

/// The first 16 hex digits of the page's SHA-256 (64 bits: plenty to tell builds
/// apart, short enough to read in a log).
pub fn hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| short_sha256(HTML))
}

/// `ui://palmaplan/planning?v=<hash>`: the URI the tools point at and the list names.
pub fn resource_uri() -> &'static str {
    static URI: OnceLock<String> = OnceLock::new();
    URI.get_or_init(|| format!("{BASE_URI}?v={}", hash()))
}

/// Whether a URI names the view: the bare URI or the bare URI with any query (an
/// older build's `?v=`, or a host that adds its own parameters). All answer the
/// current page.
pub fn is_view_uri(uri: &str) -> bool {
    match uri.strip_prefix(BASE_URI) {
        Some("") => true,
        Some(rest) => rest.starts_with('?'),
        None => false,
    }
}

/// The tag that replaces [`MCP_MARKER`] under `/embed`.
pub fn embed_marker(lang: Lang) -> String {
    let lang = match lang {
        Lang::Fr => "fr",
        Lang::En => "en",
    };
    format!(r#"<meta name="palmaplan-mode" content="embed" data-lang="{lang}">"#)
}

/// The page served under `/embed`, in the server's language (made once per language:
/// the page may weigh megabytes, and the server never changes its language).
pub fn embed_page(lang: Lang) -> &'static str {
    static FR: OnceLock<String> = OnceLock::new();
    static EN: OnceLock<String> = OnceLock::new();
    let cell = match lang {
        Lang::Fr => &FR,
        Lang::En => &EN,
    };
    cell.get_or_init(|| HTML.replacen(MCP_MARKER, &embed_marker(lang), 1))
}

/// The page served under `/app/schedules/<id>` (the web screen, signed in): the mode
/// tag says "app" and carries the session's anti-forgery token, which the view sends
/// back on each call (`X-PalmaPlan-CSRF`). Made per request, as the token is the
/// session's; hex only, so it needs no escaping.
pub fn app_page(lang: Lang, csrf: &str) -> String {
    debug_assert!(csrf.bytes().all(|b| b.is_ascii_hexdigit()));
    let lang = match lang {
        Lang::Fr => "fr",
        Lang::En => "en",
    };
    HTML.replacen(
        MCP_MARKER,
        &format!(
            r#"<meta name="palmaplan-mode" content="app" data-lang="{lang}" data-csrf="{csrf}">"#
        ),
        1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_put_the_mode_tag_in_the_page_exactly_once() {
        let n = HTML.matches(MCP_MARKER).count();
        assert_eq!(
            n, 1,
            "view-wasm/dist/planning.html holds `{MCP_MARKER}` {n} times, not once: the view build is broken, and /embed could not tell the view where it runs"
        );
        let head = HTML.trim_start().get(..15).unwrap_or_default();
        assert!(
            head.eq_ignore_ascii_case("<!doctype html>"),
            "view-wasm/dist/planning.html is not an HTML document: it starts with {head:?}"
        );
    }

    #[test]
    fn the_page_names_the_translation_this_server_hands_over() {
        let tag = format!(
            r#"<meta name="palmaplan-translation" content="{}" data-parts="{}">"#,
            translation_build(),
            translation_parts()
        );
        assert_eq!(
            HTML.matches(&tag).count(),
            1,
            "view-wasm/dist/planning.html does not name the translation in view-wasm/dist/wasm2js.txt ({tag}): rebuild the view (bash view-wasm/build.sh)"
        );
        let whole: String = (0..translation_parts())
            .map(|i| translation_part(i).unwrap())
            .collect();
        assert_eq!(whole, TRANSLATION);
        assert!(translation_part(translation_parts()).is_none());
        assert!(translation_part(usize::MAX).is_none());
        assert!(
            TRANSLATION
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
        );
    }

    #[test]
    fn the_uri_carries_the_pages_hash() {
        let h = hash();
        assert_eq!(h.len(), 16);
        assert!(
            h.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        // The page's SHA-256, computed here directly.
        use sha2::{Digest, Sha256};
        assert_eq!(h, &hex::encode(Sha256::digest(HTML.as_bytes()))[..16]);
        assert_eq!(resource_uri(), format!("ui://palmaplan/planning?v={h}"));
    }

    #[test]
    fn every_version_of_the_view_uri_is_the_view() {
        for yes in [
            BASE_URI,
            resource_uri(),
            "ui://palmaplan/planning?v=0123456789abcdef",
            "ui://palmaplan/planning?v=",
        ] {
            assert!(is_view_uri(yes), "{yes}");
        }
        for no in [
            "ui://palmaplan/planningx",
            "ui://palmaplan/planning/other",
            "ui://palmaplan/other",
            "ui://palmaplan",
            "palmaplan://schedule/1/json",
            "",
        ] {
            assert!(!is_view_uri(no), "{no}");
        }
    }

    #[test]
    fn the_embed_page_is_the_same_page_with_the_embed_tag() {
        for (lang, tag) in [(Lang::Fr, "fr"), (Lang::En, "en")] {
            let page = embed_page(lang);
            let marker =
                format!(r#"<meta name="palmaplan-mode" content="embed" data-lang="{tag}">"#);
            assert_eq!(page.matches(&marker).count(), 1, "{tag}");
            assert!(!page.contains(MCP_MARKER), "{tag}");
            assert_eq!(page.replacen(&marker, MCP_MARKER, 1), HTML, "{tag}");
        }
    }
}
