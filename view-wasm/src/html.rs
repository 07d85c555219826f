//! The one way the view writes HTML text. Markup can only come from string literals
//! (`&'static str`) or from another finished fragment ([`Html`]); everything known
//! only at run time (names, labels, server messages, translations built from data)
//! goes in through [`H::text`], which escapes it, so user text cannot become markup by
//! forgetting a call at one of the hundreds of places the chart writes.
//!
//! The builder writes straight into one `String` (the chart draws thousands of bars per
//! frame): no element tree, no allocation per element or per escaped text.

use std::fmt::{self, Write as _};

/// A finished fragment of HTML. Only [`H::finish`] makes one, so its text is markup
/// from literals and escaped run-time text, and it can be embedded as is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Html(String);

impl Html {
    /// The text, for the DOM (`set_inner_html` and the like) and for comparisons.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An HTML builder. Every method returns the builder, to chain.
#[derive(Debug, Default)]
pub struct H {
    out: String,
}

/// Numbers that print without characters HTML gives a meaning to.
pub trait Num: fmt::Display + private::Sealed {
    /// Appends the number as `Display` writes it.
    fn put(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
}

/// Appends an integer's decimal digits. The chart writes a few thousand at each frame
/// it scrolls (its pixels are `i64`): through `fmt`, a 64-bit division per digit, which
/// the JavaScript translation makes a call to a helper. Here one that fits 32 bits (all
/// of them, in practice) is divided as 32 bits.
fn put_int(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    let Ok(mut m) = u32::try_from(n.unsigned_abs()) else {
        let _ = write!(out, "{}", n.unsigned_abs());
        return;
    };
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

mod private {
    pub trait Sealed {}
}

macro_rules! int {
    ($($t:ty),*) => {$(
        impl private::Sealed for $t {}
        impl Num for $t {
            fn put(&self, out: &mut String) {
                match i64::try_from(*self) {
                    Ok(n) => put_int(out, n),
                    Err(_) => {
                        let _ = write!(out, "{self}");
                    }
                }
            }
        }
    )*};
}
int!(i32, i64, u8, u16, u32, u64, usize);
impl private::Sealed for f64 {}
impl Num for f64 {}

/// Writes `s` into `out`, escaped for text and for attribute values (quoted with `"`
/// or `'`): the characters `palmaplan_model::text::escape_html` escapes.
fn escape_into(out: &mut String, s: &str) {
    let mut rest = s;
    while let Some(i) = rest.find(['&', '<', '>', '"', '\'']) {
        out.push_str(&rest[..i]);
        out.push_str(match rest.as_bytes()[i] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            _ => "&#39;",
        });
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
}

/// Escapes what `format_args!` writes (a formatted text without an intermediate
/// `String`).
struct Escaping<'a>(&'a mut String);

impl fmt::Write for Escaping<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        escape_into(self.0, s);
        Ok(())
    }
}

impl H {
    pub fn new() -> H {
        H::default()
    }

    pub fn with_capacity(n: usize) -> H {
        H {
            out: String::with_capacity(n),
        }
    }

    /// Markup, or words written in the code. `'static` is what keeps run-time text
    /// out: only literals live that long (and a leaked `String`, which the view never
    /// makes).
    pub fn lit(&mut self, markup: &'static str) -> &mut H {
        self.out.push_str(markup);
        self
    }

    /// Run-time text, escaped (as content or inside a quoted attribute value).
    pub fn text(&mut self, s: &str) -> &mut H {
        escape_into(&mut self.out, s);
        self
    }

    /// Formatted run-time text, escaped: `h.textf(format_args!("{n} days"))`.
    pub fn textf(&mut self, args: fmt::Arguments<'_>) -> &mut H {
        let _ = Escaping(&mut self.out).write_fmt(args);
        self
    }

    /// A number, as is.
    pub fn num(&mut self, n: impl Num) -> &mut H {
        n.put(&mut self.out);
        self
    }

    /// ` name="value"`, the value escaped.
    pub fn attr(&mut self, name: &'static str, value: &str) -> &mut H {
        self.out.push(' ');
        self.out.push_str(name);
        self.out.push_str("=\"");
        self.text(value);
        self.out.push('"');
        self
    }

    /// A finished fragment, as it is (it is escaped already).
    pub fn html(&mut self, h: &Html) -> &mut H {
        self.out.push_str(&h.0);
        self
    }

    /// What another builder wrote, as it is.
    pub fn append(&mut self, h: &H) -> &mut H {
        self.out.push_str(&h.out);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    pub fn finish(self) -> Html {
        Html(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVIL: &str = "<script>alert(\"x\" & 'y')</script>";
    const SAFE: &str = "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;";

    #[test]
    fn run_time_text_is_escaped_as_content_and_as_attribute_values() {
        let mut h = H::new();
        h.lit("<p")
            .attr("title", EVIL)
            .lit(">")
            .text(EVIL)
            .lit("</p>");
        assert_eq!(
            h.finish().as_str(),
            format!("<p title=\"{SAFE}\">{SAFE}</p>")
        );
        let mut h = H::new();
        h.textf(format_args!("{EVIL}: {}", 3));
        assert_eq!(h.finish().as_str(), format!("{SAFE}: 3"));
    }

    #[test]
    fn escaping_is_the_model_s() {
        for s in [EVIL, "", "plain", "é&è", "<<>>", "a'b\"c", "→ 100\u{202f}%"] {
            let mut h = H::new();
            h.text(s);
            assert_eq!(h.finish().as_str(), palmaplan_model::text::escape_html(s));
        }
    }

    #[test]
    fn fragments_embed_without_being_escaped_again() {
        let mut inner = H::new();
        inner.lit("<b>").text("a & b").lit("</b>");
        let inner = inner.finish();
        let mut outer = H::new();
        outer.lit("<p>").html(&inner).lit("</p>");
        let mut more = H::new();
        more.lit("<i>").text("<");
        outer.append(&more).lit("</i>");
        assert_eq!(
            outer.finish().as_str(),
            "<p><b>a &amp; b</b></p><i>&lt;</i>"
        );
    }

    #[test]
    fn numbers_print_as_they_are() {
        let mut h = H::new();
        h.num(-3i64).lit(",").num(7usize).lit(",").num(1.5f64);
        assert_eq!(h.finish().as_str(), "-3,7,1.5");
    }

    #[test]
    fn integers_print_as_display_prints_them() {
        for n in [
            0i64,
            9,
            10,
            -10,
            4_294_967_295,
            4_294_967_296,
            -4_294_967_296,
            i64::MAX,
            i64::MIN,
        ] {
            let mut h = H::new();
            h.num(n);
            assert_eq!(h.finish().as_str(), n.to_string());
        }
        let mut h = H::new();
        h.num(u64::MAX).lit(",").num(0u8).lit(",").num(usize::MAX);
        assert_eq!(
            h.finish().as_str(),
            format!("{},0,{}", u64::MAX, usize::MAX)
        );
    }
}
