-- One-time sign-in links (sqlite; keep in step with ../postgres/0004_signin_links.sql):
-- `palmaplan user sign-in-link` prints the secret, only its SHA-256 is kept. A link
-- opens one session, once, within minutes.
CREATE TABLE signin_links (
    hash TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
