//! The view's words, French and English, and the locale and host-name rules.
//!
//! The view follows the host's locale (`hostContext.locale`): French for `fr*`,
//! English for anything else. It names the host only through `hostInfo.name` (see
//! `bridge::clean_host_name`); without one it says "l'assistant" / "the assistant".

use palmaplan_model::Lang;

/// The language of a BCP 47 locale.
pub fn lang_of_locale(locale: &str) -> Lang {
    if locale.trim().to_ascii_lowercase().starts_with("fr") {
        Lang::Fr
    } else {
        Lang::En
    }
}

pub fn tr(lang: Lang, fr: &'static str, en: &'static str) -> &'static str {
    match lang {
        Lang::Fr => fr,
        Lang::En => en,
    }
}

/// What the view calls the host in a sentence.
pub fn host_word(lang: Lang, host: Option<&str>) -> String {
    match host {
        Some(h) => h.to_owned(),
        None => tr(lang, "l'assistant", "the assistant").to_owned(),
    }
}

/// "Demander à Claude…" / "Ask Claude…".
pub fn ask_label(lang: Lang, host: Option<&str>) -> String {
    let who = host_word(lang, host);
    match lang {
        Lang::Fr => {
            if host.is_none() {
                "Demander à l'assistant…".to_owned()
            } else {
                format!("Demander à {who}…")
            }
        }
        Lang::En => format!("Ask {who}…"),
    }
}

/// The words of a cancelled call: a read changed nothing; a write may have gone through.
pub fn cancelled(lang: Lang, write: bool) -> &'static str {
    if write {
        tr(
            lang,
            "Demande arrêtée. Elle a pu aboutir\u{a0}: vérifiez le planning avant de réessayer.",
            "Request stopped. It may have gone through: check the schedule before trying again.",
        )
    } else {
        tr(
            lang,
            "Demande arrêtée. Rien n'a été modifié.",
            "Request stopped. Nothing was changed.",
        )
    }
}

/// The words of a call that got no answer in time.
pub fn timed_out(lang: Lang, write: bool, host: Option<&str>) -> String {
    let who = host_word(lang, host);
    match (lang, write) {
        (Lang::Fr, false) => format!("Pas de réponse de {who} à temps. Rien n'a été modifié."),
        (Lang::Fr, true) => format!(
            "Pas de réponse de {who} à temps. La modification a pu aboutir\u{a0}: vérifiez le planning avant de réessayer."
        ),
        (Lang::En, false) => format!("No answer from {who} in time. Nothing was changed."),
        (Lang::En, true) => format!(
            "No answer from {who} in time. The change may have gone through: check the schedule before trying again."
        ),
    }
}

pub const OUT_OF_DATE_FR: &str = "Cette proposition n'est plus à jour — demandez-en une nouvelle.";
pub const OUT_OF_DATE_EN: &str = "This proposal is out of date — ask for a new one.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locale_and_host_words() {
        assert_eq!(lang_of_locale("fr-FR"), Lang::Fr);
        assert_eq!(lang_of_locale("FR"), Lang::Fr);
        assert_eq!(lang_of_locale("en-US"), Lang::En);
        assert_eq!(lang_of_locale("de-DE"), Lang::En);
        assert_eq!(ask_label(Lang::Fr, None), "Demander à l'assistant…");
        assert_eq!(ask_label(Lang::Fr, Some("Claude")), "Demander à Claude…");
        assert_eq!(ask_label(Lang::En, None), "Ask the assistant…");
        assert!(timed_out(Lang::En, true, Some("Goose")).contains("Goose"));
        assert!(cancelled(Lang::Fr, false).contains("Rien"));
        assert!(cancelled(Lang::En, true).contains("may have gone through"));
    }
}
