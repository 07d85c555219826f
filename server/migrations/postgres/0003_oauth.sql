-- OAuth 2.1 (postgres; keep in step with ../sqlite/0003_oauth.sql). Secrets (passwords,
-- codes, tokens, sign-in sessions) are stored as hashes only: argon2id for passwords,
-- SHA-256 for the random ones, as named tokens. Times are Unix milliseconds.
ALTER TABLE users ADD COLUMN password_hash TEXT;
-- Clients registered by RFC 7591 (public clients: no secret). redirect_uris is a JSON
-- array of exact strings.
CREATE TABLE oauth_clients (
    client_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    redirect_uris TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
-- What a person allowed a client: the same two limits as a named token (can_write,
-- schedule_id), for one resource (RFC 8707). Revoking it kills its codes and tokens.
CREATE TABLE oauth_grants (
    id BIGSERIAL PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES oauth_clients(client_id),
    user_id BIGINT NOT NULL REFERENCES users(id),
    can_write BIGINT NOT NULL,
    schedule_id BIGINT,
    resource TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at BIGINT
);
-- Authorization codes: single use (used_at), short-lived, bound to a redirect URI and a
-- PKCE S256 challenge.
CREATE TABLE oauth_codes (
    hash TEXT PRIMARY KEY,
    grant_id BIGINT NOT NULL REFERENCES oauth_grants(id),
    redirect_uri TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
-- Access and refresh tokens of a grant. A refresh token is revoked when rotated; a
-- revoked one shown again revokes the grant.
CREATE TABLE oauth_tokens (
    id BIGSERIAL PRIMARY KEY,
    grant_id BIGINT NOT NULL REFERENCES oauth_grants(id),
    kind TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at BIGINT
);
CREATE INDEX oauth_tokens_by_grant ON oauth_tokens (grant_id);
-- Sign-in sessions of the consent pages (the cookie holds the secret).
CREATE TABLE web_sessions (
    hash TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
