//! The help page the view's "Help" button opens (through the host's `ui/open-link`):
//! what the three views show, what the marks mean (critical, at risk, late, float,
//! constraints, deadlines, locks, the before/after), and the gestures and keys, in the
//! person's language. The texts are `server/help/fr.html` and `server/help/en.html`,
//! written for people (not the engineering notes of docs/embedded-view.md); this file
//! wraps one in a page that loads nothing and runs nothing.

use palmaplan_model::Lang;

const FR: &str = include_str!("../help/fr.html");
const EN: &str = include_str!("../help/en.html");

/// The whole page in `lang`.
pub(crate) fn page(lang: Lang) -> String {
    let (tag, title, body) = match lang {
        Lang::Fr => ("fr", "Aide — le planning dans la conversation", FR),
        Lang::En => ("en", "Help — the schedule in the conversation", EN),
    };
    format!(
        "<!doctype html>\n<html lang=\"{tag}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>\
         body{{margin:0;padding:1.5rem;background:#f6f7f9;color:#1d2430;\
         font:15px/1.55 system-ui,-apple-system,\"Segoe UI\",sans-serif}}\
         main{{max-width:46rem;margin:0 auto}}\
         h1{{font-size:1.5rem;margin:.2rem 0 1rem}}h2{{font-size:1.1rem;margin:1.6rem 0 .5rem}}\
         dt{{font-weight:600;margin-top:.6rem}}dd{{margin:.1rem 0 0 1.2rem}}\
         table{{border-collapse:collapse;width:100%}}\
         th,td{{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #d5d9e0;vertical-align:top}}\
         @media (prefers-color-scheme:dark){{body{{background:#15181d;color:#e6e8eb}}\
         th,td{{border-color:#3a404a}}}}\
         </style></head><body><main>\n{body}</main></body></html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The visible text of a fragment: tags dropped.
    fn text(html: &str) -> String {
        let mut out = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => out.push(c),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn the_french_page_keeps_french_typography() {
        let t = text(FR);
        for (i, c) in t.char_indices() {
            let before = t[..i].chars().next_back();
            match c {
                ':' => assert_eq!(
                    before,
                    Some('\u{a0}'),
                    "before « : » …{}",
                    &t[i.saturating_sub(30)..i]
                ),
                ';' | '?' | '!' => {
                    assert_eq!(
                        before,
                        Some('\u{202f}'),
                        "before « {c} » …{}",
                        &t[i.saturating_sub(30)..i]
                    );
                }
                '»' => assert_eq!(
                    before,
                    Some('\u{a0}'),
                    "inside » …{}",
                    &t[i.saturating_sub(30)..i]
                ),
                '«' => assert!(
                    t[i + c.len_utf8()..].starts_with('\u{a0}'),
                    "inside « {}",
                    &t[i..]
                ),
                _ => {}
            }
        }
        assert!(!t.contains('\''), "a typewriter apostrophe: use ’");
    }

    #[test]
    fn both_pages_say_the_same_things_in_their_language() {
        for (lang, words) in [
            (
                Lang::Fr,
                [
                    "Gantt",
                    "Kanban",
                    "Agenda",
                    "Critique",
                    "À risque",
                    "Ctrl+Z",
                    "Suppr",
                    "Échap",
                ],
            ),
            (
                Lang::En,
                [
                    "Gantt", "Kanban", "Agenda", "Critical", "At risk", "Ctrl+Z", "Delete", "Esc",
                ],
            ),
        ] {
            let p = page(lang);
            for w in words {
                assert!(p.contains(w), "{lang:?}: {w}");
            }
        }
        // As many sections, marks and keys in each.
        for tag in ["<h2>", "<dt>", "<tr>"] {
            assert_eq!(FR.matches(tag).count(), EN.matches(tag).count(), "{tag}");
        }
        assert!(page(Lang::Fr).starts_with("<!doctype html>\n<html lang=\"fr\">"));
        assert!(page(Lang::En).contains("<html lang=\"en\">"));
        // Nothing loaded, nothing run.
        for p in [page(Lang::Fr), page(Lang::En)] {
            assert!(!p.contains("<script") && !p.contains("src=") && !p.contains("href="));
        }
    }
}
