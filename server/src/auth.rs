//! Named API tokens: how they are made, shown once, and recognised.
//!
//! A token is `ppt_` followed by 32 random bytes in hex. Only its SHA-256 is stored, so
//! a copy of the database gives no one a working token; the prefix lets secret
//! scanners and people recognise a PalmaPlan token in a leaked file. Scopes are two:
//! read (every read tool) and write (also the tools that change a schedule), optionally
//! restricted to one schedule. Roles per schedule still apply on top of scopes: a
//! write-scoped token of a viewer writes nothing.

use sha2::{Digest, Sha256};

/// The prefix of every named token.
pub const TOKEN_PREFIX: &str = "ppt_";

/// The prefixes of the OAuth secrets (`crate::oauth`): access and refresh tokens,
/// authorization codes, sign-in sessions and links. Distinct from [`TOKEN_PREFIX`] so that each
/// secret is looked up only where it belongs, and a scanner tells them apart.
pub const ACCESS_PREFIX: &str = "ppa_";
pub const REFRESH_PREFIX: &str = "ppr_";
pub const CODE_PREFIX: &str = "ppc_";
pub const SESSION_PREFIX: &str = "pps_";
/// One-time sign-in links (`palmaplan user sign-in-link`).
pub const SIGNIN_LINK_PREFIX: &str = "ppl_";

/// A new token secret, from the operating system's random source.
pub fn new_token() -> Result<String, getrandom::Error> {
    new_secret(TOKEN_PREFIX)
}

/// A new secret: `prefix` then 32 random bytes in hex. Stored as [`token_hash`].
pub fn new_secret(prefix: &str) -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(format!("{prefix}{}", hex::encode(bytes)))
}

/// Whether a string has the shape of a secret made by [`new_secret`] with `prefix`.
pub fn looks_like_secret(prefix: &str, s: &str) -> bool {
    s.strip_prefix(prefix)
        .is_some_and(|rest| rest.len() == 64 && rest.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The stored form of a token: the hex SHA-256 of the whole secret.
pub fn token_hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Whether a string has the shape of one of our tokens (checked before any lookup, so
/// that garbage never reaches the database).
pub fn looks_like_token(s: &str) -> bool {
    looks_like_secret(TOKEN_PREFIX, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unique_prefixed_and_hashed() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_ne!(a, b);
        assert!(looks_like_token(&a), "{a}");
        assert!(!looks_like_token("ppt_short"));
        assert!(!looks_like_token(&a.replace("ppt_", "xyz_")));
        let access = new_secret(ACCESS_PREFIX).unwrap();
        assert!(looks_like_secret(ACCESS_PREFIX, &access), "{access}");
        assert!(
            !looks_like_token(&access),
            "an access token is not a named token"
        );
        assert!(!looks_like_secret(REFRESH_PREFIX, &access));
        assert_eq!(token_hash(&a), token_hash(&a));
        assert_ne!(token_hash(&a), token_hash(&b));
        assert_eq!(token_hash(&a).len(), 64);
        // A known vector, so the stored form never changes by accident.
        assert_eq!(
            token_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // Lower-case digits, two per byte, as the stored hashes of existing tokens.
        let t = new_token().unwrap();
        assert_eq!(t.len(), TOKEN_PREFIX.len() + 64);
        assert!(
            t[TOKEN_PREFIX.len()..]
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
            "{t}"
        );
    }
}
