//! The web screen for a signed-in person (issue 22 part 3): server-rendered pages under
//! `/app`, signed in by the OAuth sign-in page's session (`crate::oauth`: e-mail and
//! argon2id password, an HttpOnly SameSite cookie):
//! - `GET /app` (and `/`): the schedules the person can see — name, span, their role,
//!   last change (rank and time) — each linking to its page;
//! - `GET /app/schedules/<id>`: the schedule full page, in the same view as the
//!   conversation's, under the person's session: `show_schedule` is called as the
//!   person through `Planning::call` and its gate (a schedule they cannot see is
//!   refused there), then the view page is served with the mode tag "app". Its calls go
//!   to `POST /app/schedules/<id>/call` (the session's cookie plus its anti-forgery
//!   token in `X-PalmaPlan-CSRF`), as the person with their own role, on that one
//!   schedule; its instant updates come from `/app/schedules/<id>/events`
//!   (`crate::live`). No token in any address;
//! - `GET /app/settings/connections`: *Settings › Connections and agents › Connected
//!   applications*: the person's named tokens and OAuth grants (label, client, scopes,
//!   created, last used), a form that creates a named token (its secret shown once), and
//!   one that revokes either. Revoked, a token fails at its next `/mcp` request.
//!
//! - `GET|POST /app/schedules/<id>/access` (owners): who has access and with which role
//!   (`list_access`), a role changed or removed, access given by e-mail
//!   (`share_schedule`), both called as the person through the gate.
//!
//! Which schedules a person sees is `list_schedules`'s answer, also through the gate:
//! this module decides no access of its own. Its own rules are the forms': every POST
//! carries the session's anti-forgery token (`Session::csrf`), and a token restricted
//! to one schedule needs a role on it (as on the consent page).
//!
//! Pages are French unless `?lang=en` or the browser prefers English; they load nothing
//! (no script, no request beyond this server), are never framed, never cached. An
//! unsigned visitor is sent to the sign-in page with a local `next`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use palmaplan_model::text::{count, escape_html};
use palmaplan_model::{Lang, Schedule};
use serde_json::json;

use crate::auth;
use crate::bootstrap::utc;
use crate::http::{AppState, MAX_REQUEST_BODY_BYTES, call_refused, read_call_body, view_call};
use crate::mcp::to_result;
use crate::oauth::{
    Session, cleaned_name, constant_eq, hidden_field, lang_tag, no_store, page_lang, see_other,
    signed_in,
};
use crate::planning::{Caller, Code, role_name, tr};
use crate::storage::{Role, StoreError};

/// Where the connected applications are.
pub const CONNECTIONS: &str = "/app/settings/connections";

/// The longest label of a named token.
const MAX_LABEL: usize = 100;

/// Named tokens one person may create from the page within
/// `oauth::ATTEMPT_WINDOW_MS` (15 minutes): each is a row and a secret; a stolen
/// session may not mint them without end.
pub const MAX_TOKEN_CREATIONS: u32 = 20;

/// The CSP of every page: inline styles only; forms post to this server.
const SCREEN_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

pub(crate) fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/", get(home))
        .route("/app", get(list_page))
        .route("/app/schedules/{schedule}", get(schedule_page))
        .route(
            "/app/schedules/{schedule}/call",
            post(app_call).layer(DefaultBodyLimit::max(MAX_REQUEST_BODY_BYTES)),
        )
        .route(
            "/app/schedules/{schedule}/events",
            get(crate::live::app_events),
        )
        .route(
            "/app/schedules/{schedule}/access",
            get(access_page).post(access_change),
        )
        .route(CONNECTIONS, get(connections_page))
        .route("/app/settings/connections/tokens", post(create_token))
        .route(
            "/app/settings/connections/tokens/{id}/revoke",
            post(revoke_token),
        )
        .route(
            "/app/settings/connections/grants/{id}/revoke",
            post(revoke_grant),
        )
}

// ---------------------------------------------------------------------------------
// Who and in which language

/// The language a page was asked in by its address or form (`lang=`), if any: links
/// and forms carry it on, so a choice made once holds.
fn asked_lang(p: &HashMap<String, String>) -> Option<Lang> {
    match p.get("lang").map(|l| l.to_ascii_lowercase()) {
        Some(l) if l.starts_with("en") => Some(Lang::En),
        Some(l) if l.starts_with("fr") => Some(Lang::Fr),
        _ => None,
    }
}

/// A query string or form as a map (a repeated key keeps its last value: nothing here
/// depends on which).
fn params(raw: &[u8]) -> HashMap<String, String> {
    form_urlencoded::parse(raw).into_owned().collect()
}

/// `path` with the asked language carried on.
fn href(path: &str, asked: Option<Lang>) -> String {
    match asked {
        None => path.to_owned(),
        Some(l) => {
            let sep = if path.contains('?') { '&' } else { '?' };
            format!("{path}{sep}lang={}", lang_tag(l))
        }
    }
}

/// The person calling the tools from the screen: their own roles, read and write
/// (the gate still applies their role on each schedule), every schedule.
fn caller(session: &Session, lang: Lang) -> Caller {
    Caller {
        user_id: session.user.id,
        can_write: true,
        only_schedule: None,
        max_role: None,
        lang,
        apps: false,
        credential: None,
    }
}

/// The view on the schedule page, calling: the view's tools only (the gate reads that
/// from `max_role`), on that one schedule, with the person's whole role (an owner is
/// an owner here), as a view (`apps`: `show_schedule` signs it no link).
fn view_caller(session: &Session, lang: Lang, schedule: i64) -> Caller {
    Caller {
        only_schedule: Some(schedule),
        max_role: Some(Role::Owner),
        apps: true,
        ..caller(session, lang)
    }
}

/// The sign-in page, then back to `uri` (a path of this server).
fn to_sign_in(uri: &Uri, lang: Lang) -> Response {
    let next = uri
        .path_and_query()
        .map_or("/app", |p| p.as_str())
        .to_owned();
    let mut to = String::from("/oauth/signin?");
    let start = to.len();
    form_urlencoded::Serializer::for_suffix(&mut to, start)
        .append_pair("next", &next)
        .append_pair("lang", lang_tag(lang));
    see_other(&to)
}

/// The session of a GET page, or where to go instead.
async fn session_or_sign_in(
    state: &AppState,
    headers: &HeaderMap,
    uri: &Uri,
    lang: Lang,
) -> Result<Session, Response> {
    match signed_in(state, headers).await {
        Ok(Some(s)) => Ok(s),
        Ok(None) => Err(to_sign_in(uri, lang)),
        Err(e) => Err(unavailable(lang, e)),
    }
}

// ---------------------------------------------------------------------------------
// Pages

/// A page of the screen: the navigation, then `body`. `here` is the page's GET
/// address, where its language link leads.
fn screen(
    status: StatusCode,
    lang: Lang,
    asked: Option<Lang>,
    here: &str,
    title: &str,
    who: Option<&Session>,
    body: &str,
) -> Response {
    let nav = match who {
        None => String::new(),
        Some(s) => format!(
            "<nav><a href=\"{list}\">{schedules}</a> <a href=\"{conn}\">{settings}</a> \
             <a href=\"{other}\" lang=\"{other_tag}\">{other_name}</a>\
             <span class=\"who\">{signed}</span>\
             <form method=\"post\" action=\"/oauth/signout\" class=\"out\">{out_hidden}\
             <button type=\"submit\">{out}</button></form></nav>",
            out_hidden = {
                let mut h = hidden_field("csrf", &s.csrf);
                h.push_str(&hidden_field("lang", lang_tag(lang)));
                h
            },
            out = escape_html(&tr(lang, "Se déconnecter", "Sign out")),
            list = escape_html(&href("/app", asked)),
            schedules = escape_html(&tr(lang, "Plannings", "Schedules")),
            conn = escape_html(&href(CONNECTIONS, asked)),
            settings = escape_html(&tr(
                lang,
                "Réglages › Connexions et agents",
                "Settings › Connections and agents",
            )),
            // A page of the screen to read in the other language: `here` is where
            // a GET shows it (a form's answer is at an address only POST answers).
            other = escape_html(&href(
                here,
                Some(match lang {
                    Lang::Fr => Lang::En,
                    Lang::En => Lang::Fr,
                })
            )),
            other_tag = match lang {
                Lang::Fr => "en",
                Lang::En => "fr",
            },
            other_name = match lang {
                Lang::Fr => "English",
                Lang::En => "Français",
            },
            signed = escape_html(&tr(
                lang,
                format!("Connecté en tant que {}", s.user.email),
                format!("Signed in as {}", s.user.email),
            )),
        ),
    };
    let html = format!(
        "<!doctype html>\n<html lang=\"{tag}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <title>PalmaPlan — {title}</title><style>\
         body{{font:16px/1.5 system-ui,sans-serif;margin:0;padding:1.5rem 1rem;color:#1d2430;background:#f6f7f9}}\
         main{{max-width:60rem;margin:0 auto}}nav{{display:flex;flex-wrap:wrap;gap:1rem;align-items:baseline;margin-bottom:1rem}}\
         nav .who{{margin-left:auto;color:#5b6472;font-size:.9rem}}h1{{font-size:1.35rem}}h2{{font-size:1.1rem;margin-top:2rem}}\
         table{{border-collapse:collapse;width:100%;background:#fff}}th,td{{text-align:left;padding:.5rem .6rem;border-bottom:1px solid #d9dde3;vertical-align:top}}\
         th{{font-weight:600;font-size:.9rem;color:#5b6472}}a{{color:#2457c5}}\
         form.inline{{margin:0}}label{{display:block;margin:.75rem 0 .25rem}}input[type=text],select{{padding:.4rem;font:inherit;min-width:18rem}}\
         button{{font:inherit;padding:.35rem 1rem;border-radius:6px;border:1px solid #2457c5;background:#2457c5;color:#fff}}\
         button.danger{{background:transparent;color:#b3261e;border-color:#b3261e}}\
         .note{{color:#5b6472;font-size:.9rem}}.secret{{background:#fff;border:1px solid #2457c5;border-radius:8px;padding:1rem}}\
         code{{font-family:ui-monospace,monospace;font-size:.9rem;word-break:break-all}}.error{{color:#b3261e}}\
         @media (prefers-color-scheme:dark){{body{{background:#15181d;color:#e6e8eb}}table,.secret{{background:#1d2127}}th,td{{border-color:#333a44}}a{{color:#8fb0ff}}}}\
         </style></head><body><main>{nav}<h1>{title}</h1>{body}</main></body></html>\n",
        tag = lang_tag(lang),
        title = escape_html(title),
    );
    no_store((
        status,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(SCREEN_CSP),
            ),
            (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
            (
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            ),
        ],
        html,
    ))
}

/// A refusal: what happened and what to do, with a way back.
fn refusal(
    status: StatusCode,
    lang: Lang,
    asked: Option<Lang>,
    here: &str,
    who: Option<&Session>,
    title: &str,
    why: &str,
) -> Response {
    let body = format!(
        "<p class=\"error\">{}</p><p><a href=\"{}\">{}</a></p>",
        escape_html(why),
        escape_html(&href("/app", asked)),
        escape_html(&tr(lang, "Retour à mes plannings", "Back to my schedules")),
    );
    screen(status, lang, asked, here, title, who, &body)
}

fn unavailable(lang: Lang, e: StoreError) -> Response {
    tracing::error!(error = %e, "web screen: the database does not answer");
    refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        lang,
        None,
        "/app",
        None,
        &tr(lang, "Service indisponible", "Service unavailable"),
        &tr(
            lang,
            "La base de données du serveur ne répond pas\u{a0}: réessayez dans un instant.",
            "The server's database does not answer: try again in a moment.",
        ),
    )
}

/// `GET /`: the screen.
async fn home(RawQuery(query): RawQuery) -> Response {
    let p = params(query.unwrap_or_default().as_bytes());
    see_other(&href("/app", asked_lang(&p)))
}

/// The first and last days of a schedule's bars and milestones.
fn span(s: &Schedule) -> Option<(palmaplan_model::Date, palmaplan_model::Date)> {
    let days = s
        .bars
        .iter()
        .flat_map(|b| [b.start, b.end])
        .chain(s.milestones.iter().map(|m| m.date));
    days.fold(None, |acc, d| match acc {
        None => Some((d, d)),
        Some((a, b)) => Some((a.min(d), b.max(d))),
    })
}

/// `GET /app`: the schedules the person can see.
async fn list_page(
    State(state): State<Arc<AppState>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let p = params(query.unwrap_or_default().as_bytes());
    let asked = asked_lang(&p);
    let lang = page_lang(&state, &headers, asked.map(lang_tag));
    let session = match session_or_sign_in(&state, &headers, &uri, lang).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    // Which ones: the tool's answer, as an assistant would get it.
    let reply = state
        .planning
        .call(&caller(&session, lang), "list_schedules", json!({}))
        .await;
    if reply.is_error {
        return refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            lang,
            asked,
            "/app",
            Some(&session),
            &tr(lang, "Mes plannings", "My schedules"),
            &reply.text,
        );
    }
    let store = state.planning.store();
    // The time of each one's last change (the tool's answer has its rank).
    let times: HashMap<i64, i64> = match store.schedules_of(session.user.id).await {
        Ok(list) => list.into_iter().map(|s| (s.id, s.updated_at)).collect(),
        Err(e) => return unavailable(lang, e),
    };
    let listed = reply.structured["schedules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut rows = String::new();
    for s in &listed {
        let (Some(id), Some(name), Some(rank)) =
            (s["id"].as_i64(), s["name"].as_str(), s["rank"].as_i64())
        else {
            continue;
        };
        let role = s["role"]
            .as_str()
            .and_then(crate::storage::Role::parse)
            .map_or("", |r| role_name(r, lang));
        let span = match store.load_shared(id).await {
            Ok((_, state)) => match span(&state) {
                Some((a, b)) => tr(lang, format!("du {a} au {b}"), format!("{a} to {b}")),
                None => tr(lang, "aucune date", "no dates yet"),
            },
            Err(e) => return unavailable(lang, e),
        };
        let when = times.get(&id).map_or(String::new(), |t| utc(*t));
        rows.push_str(&format!(
            "<tr><td><a href=\"{link}\">{name}</a></td><td>{span}</td><td>{role}{manage}</td><td>{last}</td></tr>",
            link = escape_html(&href(&format!("/app/schedules/{id}"), asked)),
            name = escape_html(name),
            span = escape_html(&span),
            role = escape_html(role),
            manage = if s["role"] == "owner" {
                format!(
                    " · <a href=\"{}\">{}</a>",
                    escape_html(&href(&format!("/app/schedules/{id}/access"), asked)),
                    escape_html(&tr(lang, "membres et accès", "members and access")),
                )
            } else {
                String::new()
            },
            last = escape_html(&tr(
                lang,
                format!("rang {rank}, {when}"),
                format!("rank {rank}, {when}"),
            )),
        ));
    }
    let body = if rows.is_empty() {
        format!(
            "<p>{}</p>",
            escape_html(&tr(
                lang,
                "Vous n'avez encore aucun planning. Demandez à votre assistant d'en créer un (outil create_schedule), ou à un propriétaire de vous en partager un.",
                "You have no schedule yet. Ask your assistant to create one (the create_schedule tool), or an owner to share one with you.",
            ))
        )
    } else {
        let n = listed.len();
        format!(
            "<p>{count}</p><table><thead><tr><th>{c1}</th><th>{c2}</th><th>{c3}</th><th>{c4}</th></tr></thead><tbody>{rows}</tbody></table>",
            count = escape_html(&tr(
                lang,
                count(Lang::Fr, n, "planning", "plannings"),
                count(Lang::En, n, "schedule", "schedules"),
            )),
            c1 = escape_html(&tr(lang, "Planning", "Schedule")),
            c2 = escape_html(&tr(lang, "Période", "Span")),
            c3 = escape_html(&tr(lang, "Votre rôle", "Your role")),
            c4 = escape_html(&tr(lang, "Dernière modification", "Last change")),
        )
    };
    screen(
        StatusCode::OK,
        lang,
        asked,
        "/app",
        &tr(lang, "Mes plannings", "My schedules"),
        Some(&session),
        &body,
    )
}

/// `GET /app/schedules/<id>`: `show_schedule` as the person (through the gate), then
/// the view at the link it gives, in the person's language.
async fn schedule_page(
    State(state): State<Arc<AppState>>,
    Path(schedule): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let p = params(query.unwrap_or_default().as_bytes());
    let asked = asked_lang(&p);
    let lang = page_lang(&state, &headers, asked.map(lang_tag));
    let session = match session_or_sign_in(&state, &headers, &uri, lang).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let title = tr(lang, "Planning introuvable", "Schedule not found");
    let Ok(id) = schedule.parse::<i64>() else {
        return refusal(
            StatusCode::NOT_FOUND,
            lang,
            asked,
            "/app",
            Some(&session),
            &title,
            &tr(
                lang,
                "Cette adresse ne désigne aucun planning\u{a0}: ouvrez-en un depuis la liste.",
                "This address names no schedule: open one from the list.",
            ),
        );
    };
    // As the page's view will call it: no link signed for nothing.
    let reply = state
        .planning
        .call(
            &view_caller(&session, lang, id),
            "show_schedule",
            json!({ "schedule": id }),
        )
        .await;
    if reply.is_error {
        let status = match reply.structured["error"].as_str() {
            Some("schedule_not_found" | "no_access" | "forbidden") => StatusCode::NOT_FOUND,
            Some("storage" | "unavailable") => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::BAD_REQUEST,
        };
        return refusal(
            status,
            lang,
            asked,
            "/app",
            Some(&session),
            &title,
            &reply.text,
        );
    }
    let mut r = (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, APP_VIEW_CSP),
            (header::X_FRAME_OPTIONS, "DENY"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        crate::view::app_page(lang, &session.csrf),
    )
        .into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// The CSP of the view on the web screen: the `/embed` view's (its own inline script
/// and styles, WebAssembly, requests to this origin only), never framed: a signed-in
/// page in someone else's frame is clickjacking.
pub const APP_VIEW_CSP: &str = "default-src 'none'; script-src 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The header the view sends the session's anti-forgery token in: a page of another
/// site can make the browser send the cookie, never this header with the right value.
pub const CSRF_HEADER: &str = "x-palmaplan-csrf";

/// The session of a call of the view (`/app/schedules/<id>/call` and `/events`), or
/// the refusal as a tool result: no redirect, the view shows the words.
pub(crate) async fn view_session(
    state: &AppState,
    headers: &HeaderMap,
    lang: Lang,
    check_csrf: bool,
) -> Result<Session, Response> {
    let session = match signed_in(state, headers).await {
        Ok(Some(s)) => s,
        Ok(None) => {
            return Err(call_refused(
                StatusCode::UNAUTHORIZED,
                Code::Unauthenticated,
                tr(
                    lang,
                    "Vous n'êtes plus connecté à PalmaPlan (session terminée ou fermée)\u{a0}: rechargez la page pour vous reconnecter.",
                    "You are no longer signed in to PalmaPlan (the session ended or was closed): reload the page to sign in again.",
                ),
            ));
        }
        Err(e) => {
            tracing::error!(error = %e, "view session check: the database does not answer");
            return Err(call_refused(
                StatusCode::SERVICE_UNAVAILABLE,
                Code::Storage,
                tr(
                    lang,
                    "Le serveur ne peut pas vérifier votre session pour l'instant\u{a0}: sa base de données ne répond pas. Réessayez dans un instant.",
                    "The server cannot check your session right now: its database does not answer. Try again in a moment.",
                ),
            ));
        }
    };
    let given = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok());
    if check_csrf && given.is_none_or(|g| !constant_eq(g, &session.csrf)) {
        return Err(call_refused(
            StatusCode::FORBIDDEN,
            Code::Forbidden,
            tr(
                lang,
                "Cet appel ne vient pas de la page du planning (jeton anti-falsification absent ou faux)\u{a0}: rechargez la page.",
                "This call does not come from the schedule's page (its anti-forgery token is missing or wrong): reload the page.",
            ),
        ));
    }
    Ok(session)
}

/// The refusal of a view's call or stream for a schedule the person cannot open.
pub(crate) fn no_schedule(lang: Lang, schedule: &str) -> Response {
    call_refused(
        StatusCode::NOT_FOUND,
        Code::ScheduleNotFound,
        tr(
            lang,
            format!(
                "Vous n'avez accès à aucun planning «\u{a0}{schedule}\u{a0}»\u{a0}: ouvrez-en un depuis la liste."
            ),
            format!("You have access to no schedule “{schedule}”: open one from the list."),
        ),
    )
}

/// `POST /app/schedules/<id>/call` with `{tool, arguments, lang?}`: one of the view's
/// calls, as the signed-in person with their own role (an owner is an owner here),
/// through the gate, on that one schedule.
async fn app_call(
    State(state): State<Arc<AppState>>,
    Path(schedule): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    // The body's language, else the person's (as for the screen's pages).
    let mut lang = page_lang(&state, &headers, None);
    let read = read_call_body(&body, &mut lang);
    let session = match view_session(&state, &headers, lang, true).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let (tool, arguments) = match read {
        Ok(call) => call,
        Err(e) => {
            return call_refused(StatusCode::BAD_REQUEST, Code::InvalidBody, e.message(lang));
        }
    };
    let Ok(id) = schedule.parse::<i64>() else {
        return no_schedule(lang, &schedule);
    };
    match view_call(
        &state,
        &view_caller(&session, lang, id),
        id,
        &tool,
        arguments,
    )
    .await
    {
        Ok(reply) => {
            tracing::info!(tool = %tool, schedule = id, user = session.user.id, is_error = reply.is_error, "web screen call");
            (StatusCode::OK, axum::Json(to_result(reply))).into_response()
        }
        Err(refused) => refused,
    }
}

// ---------------------------------------------------------------------------------
// Settings › Connections and agents › Connected applications

fn scopes(lang: Lang, can_write: bool, schedule: Option<i64>) -> String {
    let access = if can_write {
        tr(lang, "lecture et écriture", "read and write")
    } else {
        tr(lang, "lecture seule", "read only")
    };
    match schedule {
        None => tr(
            lang,
            format!("{access}, tous les plannings"),
            format!("{access}, all schedules"),
        ),
        Some(id) => tr(
            lang,
            format!("{access}, planning n°\u{a0}{id} seulement"),
            format!("{access}, schedule {id} only"),
        ),
    }
}

fn revoke_form(action: &str, csrf: &str, lang: Lang, asked: Option<Lang>) -> String {
    let mut hidden = hidden_field("csrf", csrf);
    if let Some(l) = asked {
        hidden.push_str(&hidden_field("lang", lang_tag(l)));
    }
    format!(
        "<form class=\"inline\" method=\"post\" action=\"{}\">{hidden}<button type=\"submit\" class=\"danger\">{}</button></form>",
        escape_html(action),
        escape_html(&tr(lang, "Révoquer", "Revoke")),
    )
}

/// The connected applications page; `banner` above (a new secret, an error).
async fn connections(
    state: &AppState,
    session: &Session,
    lang: Lang,
    asked: Option<Lang>,
    status: StatusCode,
    banner: &str,
) -> Response {
    let store = state.planning.store();
    let (tokens, grants, schedules) = match (
        store.tokens(session.user.id).await,
        store.grants(session.user.id).await,
        store.schedules_of(session.user.id).await,
    ) {
        (Ok(t), Ok(g), Ok(s)) => (t, g, s),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return unavailable(lang, e),
    };
    let never = tr(lang, "jamais", "never");
    let head = format!(
        "<thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th></th></tr></thead>",
        escape_html(&tr(lang, "Nom", "Label")),
        escape_html(&tr(lang, "Client", "Client")),
        escape_html(&tr(lang, "Portée", "Scopes")),
        escape_html(&tr(lang, "Créé", "Created")),
        escape_html(&tr(lang, "Dernière utilisation", "Last used")),
    );
    let mut rows = String::new();
    let live_tokens: Vec<_> = tokens.iter().filter(|t| t.revoked_at.is_none()).collect();
    for t in &live_tokens {
        rows.push_str(&format!(
            "<tr><td>{label}</td><td>{client}</td><td>{scopes}</td><td>{created}</td><td>{used}</td><td>{form}</td></tr>",
            label = escape_html(&t.label),
            client = escape_html(&tr(lang, "jeton nommé (ppt_…)", "named token (ppt_…)")),
            scopes = escape_html(&scopes(lang, t.can_write, t.schedule_id)),
            created = escape_html(&utc(t.created_at)),
            used = escape_html(&t.last_used_at.map_or(never.clone(), utc)),
            form = revoke_form(
                &format!("{CONNECTIONS}/tokens/{}/revoke", t.id),
                &session.csrf,
                lang,
                asked
            ),
        ));
    }
    let live_grants: Vec<_> = grants.iter().filter(|g| g.revoked_at.is_none()).collect();
    for g in &live_grants {
        let name = if g.client_name.is_empty() {
            tr(lang, "Une application sans nom", "An unnamed application")
        } else {
            g.client_name.clone()
        };
        rows.push_str(&format!(
            "<tr><td>{label}</td><td>{client}</td><td>{scopes}</td><td>{created}</td><td>{used}</td><td>{form}</td></tr>",
            label = escape_html(&name),
            client = escape_html(&tr(
                lang,
                format!("OAuth, client {}", g.client_id),
                format!("OAuth, client {}", g.client_id),
            )),
            scopes = escape_html(&scopes(lang, g.can_write, g.schedule_id)),
            created = escape_html(&utc(g.created_at)),
            used = escape_html(&g.last_used_at.map_or(never.clone(), utc)),
            form = revoke_form(
                &format!("{CONNECTIONS}/grants/{}/revoke", g.id),
                &session.csrf,
                lang,
                asked
            ),
        ));
    }
    let n = live_tokens.len() + live_grants.len();
    let list = if n == 0 {
        format!(
            "<p>{}</p>",
            escape_html(&tr(
                lang,
                "Aucune application n'est connectée à votre compte.",
                "No application is connected to your account.",
            ))
        )
    } else {
        format!(
            "<p>{}</p><table>{head}<tbody>{rows}</tbody></table>",
            escape_html(&tr(
                lang,
                count(
                    Lang::Fr,
                    n,
                    "application connectée",
                    "applications connectées"
                ),
                count(
                    Lang::En,
                    n,
                    "connected application",
                    "connected applications"
                ),
            ))
        )
    };
    let mut options = format!(
        "<option value=\"\">{}</option>",
        escape_html(&tr(lang, "Tous mes plannings", "All my schedules"))
    );
    for s in &schedules {
        options.push_str(&format!(
            "<option value=\"{}\">{} (n°\u{a0}{})</option>",
            s.id,
            escape_html(&s.name),
            s.id
        ));
    }
    let mut hidden = hidden_field("csrf", &session.csrf);
    if let Some(l) = asked {
        hidden.push_str(&hidden_field("lang", lang_tag(l)));
    }
    let create = format!(
        "<h2>{h}</h2><form method=\"post\" action=\"{CONNECTIONS}/tokens\">{hidden}\
         <label for=\"label\">{label}</label><input id=\"label\" name=\"label\" type=\"text\" maxlength=\"{MAX_LABEL}\" required>\
         <label><input type=\"radio\" name=\"access\" value=\"write\" checked> {write}</label>\
         <label><input type=\"radio\" name=\"access\" value=\"read\"> {read}</label>\
         <label for=\"schedule\">{which}</label><select id=\"schedule\" name=\"schedule\">{options}</select>\
         <p><button type=\"submit\">{go}</button></p>\
         <p class=\"note\">{note}</p></form>",
        h = escape_html(&tr(lang, "Créer un jeton nommé", "Create a named token")),
        label = escape_html(&tr(
            lang,
            "Nom (par exemple «\u{a0}portable\u{a0}»)",
            "Label (for instance “laptop”)",
        )),
        write = escape_html(&tr(lang, "Lecture et écriture", "Read and write")),
        read = escape_html(&tr(lang, "Lecture seule", "Read only")),
        which = escape_html(&tr(lang, "Plannings", "Schedules")),
        go = escape_html(&tr(lang, "Créer le jeton", "Create the token")),
        note = escape_html(&tr(
            lang,
            "Le secret du jeton ne s'affiche qu'une fois. Vos rôles sur chaque planning s'appliquent toujours.",
            "The token's secret is shown only once. Your roles on each schedule still apply.",
        )),
    );
    let intro = format!(
        "<p class=\"note\">{}</p>",
        escape_html(&tr(
            lang,
            "Les jetons nommés et les applications autorisées par OAuth qui agissent en votre nom. Révoqué, un accès échoue dès la requête suivante.",
            "The named tokens and the applications authorized by OAuth that act on your behalf. Once revoked, an access fails at its next request.",
        ))
    );
    screen(
        status,
        lang,
        asked,
        CONNECTIONS,
        &tr(
            lang,
            "Réglages › Connexions et agents › Applications connectées",
            "Settings › Connections and agents › Connected applications",
        ),
        Some(session),
        &format!("{banner}{intro}{list}{create}"),
    )
}

/// `GET /app/settings/connections`
async fn connections_page(
    State(state): State<Arc<AppState>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let p = params(query.unwrap_or_default().as_bytes());
    let asked = asked_lang(&p);
    let lang = page_lang(&state, &headers, asked.map(lang_tag));
    match session_or_sign_in(&state, &headers, &uri, lang).await {
        Ok(session) => connections(&state, &session, lang, asked, StatusCode::OK, "").await,
        Err(r) => r,
    }
}

/// A form of the connections page: signed in and with the session's anti-forgery
/// token, or the answer to give instead.
async fn checked_form(
    state: &AppState,
    headers: &HeaderMap,
    body: &[u8],
    back: &str,
) -> Result<(Session, Lang, Option<Lang>, HashMap<String, String>), Response> {
    let p = params(body);
    let asked = asked_lang(&p);
    let lang = page_lang(state, headers, asked.map(lang_tag));
    let session = match signed_in(state, headers).await {
        Ok(Some(s)) => s,
        // Signed out meanwhile: sign in, then back to the page (the form is not replayed).
        Ok(None) => {
            let back = back.parse().unwrap_or(Uri::from_static("/app"));
            return Err(to_sign_in(&back, lang));
        }
        Err(e) => return Err(unavailable(lang, e)),
    };
    if p.get("csrf").is_none_or(|c| !constant_eq(c, &session.csrf)) {
        return Err(refusal(
            StatusCode::FORBIDDEN,
            lang,
            asked,
            back,
            Some(&session),
            &tr(lang, "Formulaire refusé", "Form refused"),
            &tr(
                lang,
                "Ce formulaire n'a pas été envoyé par une page de PalmaPlan (jeton anti-falsification absent ou faux)\u{a0}: rechargez la page et recommencez.",
                "This form was not sent by a PalmaPlan page (its anti-forgery token is missing or wrong): reload the page and try again.",
            ),
        ));
    }
    Ok((session, lang, asked, p))
}

/// `POST /app/settings/connections/tokens`: a new named token, its secret shown once.
async fn create_token(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (session, lang, asked, p) = match checked_form(&state, &headers, &body, CONNECTIONS).await {
        Ok(f) => f,
        Err(r) => return r,
    };
    let error = |why: String| {
        format!(
            "<p class=\"error\" role=\"alert\">{}</p>",
            escape_html(&why)
        )
    };
    let given = p.get("label").map_or("", |l| l.trim());
    // Format characters (bidi overrides, zero widths) would make the label read as
    // something else on this page; they are dropped, as from client names.
    let label = cleaned_name(given);
    if label.is_empty() || given.chars().count() > MAX_LABEL || given.chars().any(char::is_control)
    {
        let why = error(tr(
            lang,
            format!("Donnez au jeton un nom de 1 à {MAX_LABEL} caractères, sur une ligne."),
            format!("Give the token a label of 1 to {MAX_LABEL} characters, on one line."),
        ));
        return connections(&state, &session, lang, asked, StatusCode::BAD_REQUEST, &why).await;
    }
    let can_write = p.get("access").map(String::as_str) != Some("read");
    let store = state.planning.store();
    let schedule = match p.get("schedule").map(String::as_str) {
        None | Some("") => None,
        Some(s) => {
            let id = s.parse::<i64>().ok();
            let role = match id {
                Some(id) => match store.role(id, session.user.id).await {
                    Ok(r) => r,
                    Err(e) => return unavailable(lang, e),
                },
                None => None,
            };
            match (id, role) {
                (Some(id), Some(_)) => Some(id),
                _ => {
                    let why = error(tr(
                        lang,
                        "Vous n'avez pas accès à ce planning\u{a0}: choisissez-en un de la liste.",
                        "You have no access to that schedule: choose one from the list.",
                    ));
                    return connections(
                        &state,
                        &session,
                        lang,
                        asked,
                        StatusCode::BAD_REQUEST,
                        &why,
                    )
                    .await;
                }
            }
        }
    };
    let now = state.planning.now_ms();
    if !state.attempts.allow(
        &format!("token:{}", session.user.id),
        now,
        MAX_TOKEN_CREATIONS,
    ) {
        let why = error(tr(
            lang,
            format!(
                "Vous avez créé {MAX_TOKEN_CREATIONS}\u{a0}jetons en moins d'un quart d'heure\u{a0}: attendez quelques minutes avant d'en créer un autre."
            ),
            format!(
                "You created {MAX_TOKEN_CREATIONS} tokens in less than a quarter of an hour: wait a few minutes before creating another."
            ),
        ));
        return connections(
            &state,
            &session,
            lang,
            asked,
            StatusCode::TOO_MANY_REQUESTS,
            &why,
        )
        .await;
    }
    let Ok(secret) = auth::new_token() else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    if let Err(e) = store
        .add_token(
            session.user.id,
            &label,
            &auth::token_hash(&secret),
            can_write,
            schedule,
            now,
        )
        .await
    {
        return unavailable(lang, e);
    }
    tracing::info!(
        user = session.user.id,
        can_write,
        ?schedule,
        "named token created on the web screen"
    );
    let banner = format!(
        "<div class=\"secret\" role=\"status\"><p>{said}</p><p><code id=\"secret\">{secret}</code></p><p class=\"note\">{how}</p></div>",
        said = escape_html(&tr(
            lang,
            format!(
                "Jeton «\u{a0}{label}\u{a0}» créé. Copiez son secret maintenant\u{a0}: il ne s'affichera plus."
            ),
            format!("Token “{label}” created. Copy its secret now: it will not be shown again."),
        )),
        secret = escape_html(&secret),
        how = escape_html(&tr(
            lang,
            format!(
                "Votre client MCP l'envoie dans l'en-tête «\u{a0}Authorization: Bearer …\u{a0}» vers {}.",
                state.oauth.resource()
            ),
            format!(
                "Your MCP client sends it in the header “Authorization: Bearer …” to {}.",
                state.oauth.resource()
            ),
        )),
    );
    connections(&state, &session, lang, asked, StatusCode::OK, &banner).await
}

/// Which of the two a revoke form is about.
#[derive(Clone, Copy, Debug)]
enum Revoked {
    Token,
    Grant,
}

async fn revoke(
    state: &AppState,
    headers: &HeaderMap,
    body: &[u8],
    id: &str,
    which: Revoked,
) -> Response {
    let (session, lang, asked, _) = match checked_form(state, headers, body, CONNECTIONS).await {
        Ok(f) => f,
        Err(r) => return r,
    };
    let now = state.planning.now_ms();
    let store = state.planning.store();
    let done = match id.parse::<i64>() {
        Err(_) => Ok(false),
        Ok(id) => match which {
            Revoked::Token => store.revoke_token(session.user.id, id, now).await,
            Revoked::Grant => store.revoke_grant(id, Some(session.user.id), now).await,
        },
    };
    match done {
        Ok(true) => {
            tracing::info!(
                user = session.user.id,
                ?which,
                id,
                "revoked on the web screen"
            );
            see_other(&href(CONNECTIONS, asked))
        }
        Ok(false) => refusal(
            StatusCode::NOT_FOUND,
            lang,
            asked,
            CONNECTIONS,
            Some(&session),
            &tr(lang, "Rien à révoquer", "Nothing to revoke"),
            &tr(
                lang,
                "Cet accès n'existe pas, n'est pas le vôtre ou est déjà révoqué\u{a0}: rechargez la page Applications connectées.",
                "This access does not exist, is not yours or is already revoked: reload the Connected applications page.",
            ),
        ),
        Err(e) => unavailable(lang, e),
    }
}

/// `POST /app/settings/connections/tokens/<id>/revoke`
async fn revoke_token(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    revoke(&state, &headers, &body, &id, Revoked::Token).await
}

/// `POST /app/settings/connections/grants/<id>/revoke`
async fn revoke_grant(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    revoke(&state, &headers, &body, &id, Revoked::Grant).await
}

// ---------------------------------------------------------------------------------
// A schedule's members and access (owners)

/// The status of a refused tool answer on a page.
fn refused_status(reply: &crate::planning::Reply) -> StatusCode {
    match reply.structured["error"].as_str() {
        Some("schedule_not_found" | "no_access") => StatusCode::NOT_FOUND,
        Some("forbidden" | "read_only_token" | "token_restricted" | "last_owner") => {
            StatusCode::FORBIDDEN
        }
        Some("storage" | "unavailable") => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::BAD_REQUEST,
    }
}

const ROLES: [&str; 3] = ["viewer", "editor", "owner"];

fn role_options(lang: Lang, selected: &str, with_none: bool) -> String {
    let mut out = String::new();
    for r in ROLES {
        let name = crate::storage::Role::parse(r).map_or(r, |r| role_name(r, lang));
        let sel = if r == selected { " selected" } else { "" };
        out.push_str(&format!("<option value=\"{r}\"{sel}>{name}</option>"));
    }
    if with_none {
        out.push_str(&format!(
            "<option value=\"none\">{}</option>",
            escape_html(&tr(lang, "aucun (retirer l'accès)", "none (remove access)"))
        ));
    }
    out
}

/// The members and access page of schedule `id`, `banner` above; `list_access` as the
/// person through the gate, the forms only for an owner.
async fn access(
    state: &AppState,
    session: &Session,
    id: i64,
    lang: Lang,
    asked: Option<Lang>,
    status: StatusCode,
    banner: &str,
) -> Response {
    let here = format!("/app/schedules/{id}/access");
    let caller = caller(session, lang);
    let listed = state
        .planning
        .call(&caller, "list_access", json!({ "schedule": id }))
        .await;
    let title = tr(lang, "Membres et accès", "Members and access");
    if listed.is_error {
        return refusal(
            refused_status(&listed),
            lang,
            asked,
            &here,
            Some(session),
            &title,
            &listed.text,
        );
    }
    let users = listed.structured["users"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // Their own role from the store, not from the list (which `list_access` pages):
    // an owner past the list's first page is still an owner.
    let mine = match state.planning.store().role(id, session.user.id).await {
        Ok(r) => r,
        Err(e) => return unavailable(lang, e),
    };
    if mine != Some(Role::Owner) {
        return refusal(
            StatusCode::FORBIDDEN,
            lang,
            asked,
            &here,
            Some(session),
            &title,
            &tr(
                lang,
                "Seuls les propriétaires de ce planning en gèrent les accès\u{a0}: demandez à l'un d'eux.",
                "Only this schedule's owners manage its access: ask one of them.",
            ),
        );
    }
    let action = format!("/app/schedules/{id}/access");
    let mut hidden = hidden_field("csrf", &session.csrf);
    if let Some(l) = asked {
        hidden.push_str(&hidden_field("lang", lang_tag(l)));
    }
    let mut rows = String::new();
    for u in &users {
        let email = u["email"].as_str().unwrap_or("");
        let role = u["role"].as_str().unwrap_or("");
        rows.push_str(&format!(
            "<tr><td>{name}</td><td>{email_text}</td><td><form class=\"inline\" method=\"post\" action=\"{action}\">{hidden}{email_field}<select name=\"role\" aria-label=\"{label}\">{options}</select> <button type=\"submit\">{change}</button></form></td></tr>",
            name = escape_html(u["name"].as_str().unwrap_or("")),
            email_text = escape_html(email),
            action = escape_html(&action),
            email_field = hidden_field("email", email),
            label = escape_html(&tr(lang, "Rôle", "Role")),
            options = role_options(lang, role, true),
            change = escape_html(&tr(lang, "Changer", "Change")),
        ));
    }
    let body = format!(
        "{banner}<p><a href=\"{open}\">{open_text}</a></p><p>{count}</p>\
         <table><thead><tr><th>{c1}</th><th>{c2}</th><th>{c3}</th></tr></thead><tbody>{rows}</tbody></table>\
         <h2>{give}</h2><form method=\"post\" action=\"{action}\">{hidden}\
         <label for=\"email\">{email}</label><input id=\"email\" name=\"email\" type=\"text\" required>\
         <label for=\"role\">{role}</label><select id=\"role\" name=\"role\">{options}</select>\
         <p><button type=\"submit\">{go}</button></p><p class=\"note\">{note}</p></form>",
        open = escape_html(&href(&format!("/app/schedules/{id}"), asked)),
        open_text = escape_html(&tr(lang, "Ouvrir le planning", "Open the schedule")),
        count = escape_html(&tr(
            lang,
            count(
                Lang::Fr,
                users.len(),
                "personne a accès",
                "personnes ont accès"
            ),
            count(
                Lang::En,
                users.len(),
                "person has access",
                "people have access"
            ),
        )),
        c1 = escape_html(&tr(lang, "Nom", "Name")),
        c2 = escape_html(&tr(lang, "E-mail", "E-mail")),
        c3 = escape_html(&tr(lang, "Rôle", "Role")),
        give = escape_html(&tr(lang, "Donner accès", "Give access")),
        action = escape_html(&action),
        email = escape_html(&tr(
            lang,
            "E-mail d'une personne inscrite sur ce serveur",
            "E-mail of a person registered on this server",
        )),
        role = escape_html(&tr(lang, "Rôle", "Role")),
        options = role_options(lang, "viewer", false),
        go = escape_html(&tr(lang, "Donner accès", "Give access")),
        note = escape_html(&tr(
            lang,
            "Un lecteur consulte, un éditeur modifie, un propriétaire partage aussi et voit les données privées. Le dernier propriétaire reste.",
            "A viewer reads, an editor changes, an owner also shares and sees private data. The last owner stays.",
        )),
    );
    screen(status, lang, asked, &here, &title, Some(session), &body)
}

/// `GET /app/schedules/<id>/access`
async fn access_page(
    State(state): State<Arc<AppState>>,
    Path(schedule): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let p = params(query.unwrap_or_default().as_bytes());
    let asked = asked_lang(&p);
    let lang = page_lang(&state, &headers, asked.map(lang_tag));
    let session = match session_or_sign_in(&state, &headers, &uri, lang).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    match schedule.parse::<i64>() {
        Ok(id) => access(&state, &session, id, lang, asked, StatusCode::OK, "").await,
        Err(_) => refusal(
            StatusCode::NOT_FOUND,
            lang,
            asked,
            "/app",
            Some(&session),
            &tr(lang, "Planning introuvable", "Schedule not found"),
            &tr(
                lang,
                "Cette adresse ne désigne aucun planning\u{a0}: ouvrez-en un depuis la liste.",
                "This address names no schedule: open one from the list.",
            ),
        ),
    }
}

/// `POST /app/schedules/<id>/access` with `email` and `role` (`none` removes):
/// `share_schedule` as the person, through the gate (owners only, the last owner stays).
async fn access_change(
    State(state): State<Arc<AppState>>,
    Path(schedule): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let back = format!("/app/schedules/{}/access", schedule.trim());
    let (session, lang, asked, p) = match checked_form(&state, &headers, &body, &back).await {
        Ok(f) => f,
        Err(r) => return r,
    };
    let Ok(id) = schedule.parse::<i64>() else {
        return refusal(
            StatusCode::NOT_FOUND,
            lang,
            asked,
            "/app",
            Some(&session),
            &tr(lang, "Planning introuvable", "Schedule not found"),
            &tr(
                lang,
                "Cette adresse ne désigne aucun planning\u{a0}: ouvrez-en un depuis la liste.",
                "This address names no schedule: open one from the list.",
            ),
        );
    };
    let reply = state
        .planning
        .call(
            &caller(&session, lang),
            "share_schedule",
            json!({
                "schedule": id,
                "email": p.get("email").map_or("", |e| e.trim()),
                "role": p.get("role").map_or("", String::as_str),
            }),
        )
        .await;
    if reply.is_error {
        let banner = format!(
            "<p class=\"error\" role=\"alert\">{}</p>",
            escape_html(&reply.text)
        );
        return access(
            &state,
            &session,
            id,
            lang,
            asked,
            refused_status(&reply),
            &banner,
        )
        .await;
    }
    tracing::info!(
        user = session.user.id,
        schedule = id,
        "access changed on the web screen"
    );
    see_other(&href(&format!("/app/schedules/{id}/access"), asked))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_carry_the_asked_language_only() {
        assert_eq!(href("/app", None), "/app");
        assert_eq!(href("/app", Some(Lang::En)), "/app?lang=en");
        assert_eq!(href("/embed/3?t=x", Some(Lang::Fr)), "/embed/3?t=x&lang=fr");
        let p = params(b"lang=EN-gb&x=1");
        assert_eq!(asked_lang(&p), Some(Lang::En));
        assert_eq!(asked_lang(&params(b"lang=de")), None);
    }

    #[test]
    fn a_span_is_the_first_and_last_day_of_bars_and_milestones() {
        let s = palmaplan_model::demo::s4hana_migration();
        let (a, b) = span(&s).expect("the demo has bars");
        assert!(s.bars.iter().all(|x| a <= x.start && x.end <= b));
        assert!(s.bars.iter().any(|x| x.start == a) || s.milestones.iter().any(|m| m.date == a));
        let mut empty = s.clone();
        empty.bars.clear();
        empty.milestones.clear();
        assert_eq!(span(&empty), None);
    }

    #[test]
    fn scopes_say_read_write_and_the_one_schedule() {
        assert_eq!(
            scopes(Lang::Fr, true, Some(4)),
            "lecture et écriture, planning n°\u{a0}4 seulement"
        );
        assert_eq!(scopes(Lang::En, false, None), "read only, all schedules");
    }
}
