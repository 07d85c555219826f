//! What the tests of the server's pages share: an HTTP client that acts as a browser
//! does by hand (no redirect followed, so a test reads each `Location`), form bodies,
//! the hidden fields of a page, and the sign-in of the test server's owner.

use reqwest::header::LOCATION;

/// The password the page tests set for the owner (`oauth::set_password`).
pub(crate) const PASSWORD: &str = "correct horse battery staple";
/// The test server's owner (the first start's default e-mail).
pub(crate) const OWNER: &str = "owner@localhost";
pub(crate) const FORM: &str = "application/x-www-form-urlencoded";

pub(crate) fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// An `application/x-www-form-urlencoded` body.
pub(crate) fn form(pairs: &[(&str, &str)]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    s.finish()
}

/// The value of a page's hidden field `name`.
pub(crate) fn hidden(page: &str, name: &str) -> String {
    let key = format!("name=\"{name}\" value=\"");
    let at = page
        .find(&key)
        .unwrap_or_else(|| panic!("no field {name} in {page}"))
        + key.len();
    page[at..].split('"').next().unwrap().to_owned()
}

/// A response's `Location`, if it has one.
pub(crate) fn location_of(r: &reqwest::Response) -> Option<String> {
    r.headers()
        .get(LOCATION)
        .map(|v| v.to_str().unwrap().to_owned())
}
