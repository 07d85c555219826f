//! The SQL of OAuth (see `crate::oauth` for the protocol): passwords, registered
//! clients, grants, authorization codes, access and refresh tokens, and the sign-in
//! sessions of the consent pages. Every secret arrives here already hashed.
//!
//! The single-use and rotation rules are decided by the database, not by a read then a
//! write: a code is spent by `UPDATE … WHERE used_at IS NULL` and a refresh token
//! rotated by `UPDATE … WHERE revoked_at IS NULL`, so two requests racing with the same
//! secret (two processes on one PostgreSQL included) cannot both win.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Store, StoreError, User, user_from_row};

/// A registered client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OAuthClient {
    pub client_id: String,
    pub name: String,
    pub redirect_uris: Vec<String>,
    pub created_at: i64,
    /// A client read from its metadata document: until when it is used without being
    /// fetched again (its Cache-Control, bounded). None for a registered client.
    pub kept_until: Option<i64>,
}

/// What a person allowed a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrantInfo {
    pub id: i64,
    pub client_id: String,
    /// The client's name when it registered.
    pub client_name: String,
    pub user_id: i64,
    pub can_write: bool,
    pub schedule_id: Option<i64>,
    /// The resource (RFC 8707) its tokens are for.
    pub resource: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

/// An authorization code just spent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeInfo {
    pub grant: GrantInfo,
    pub redirect_uri: String,
    pub code_challenge: String,
    pub expires_at: i64,
}

/// What spending a code found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpentCode {
    /// No such code.
    Unknown,
    /// Spent now, by this call.
    Fresh(CodeInfo),
    /// Spent before: a replay (the caller revokes the grant, RFC 6749 §4.1.2).
    Again { grant_id: i64 },
}

/// Which of a grant's tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Access,
    Refresh,
}

impl TokenKind {
    fn as_str(self) -> &'static str {
        match self {
            TokenKind::Access => "access",
            TokenKind::Refresh => "refresh",
        }
    }
}

/// A grant's token, found by its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrantToken {
    pub id: i64,
    pub kind: TokenKind,
    pub created_at: i64,
    pub expires_at: i64,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
    pub grant: GrantInfo,
}

/// How stale a grant's "last used" date may be (as named tokens: a minute).
const LAST_USE_PRECISION_MS: i64 = 60_000;

/// How long a registered client that never got a grant is kept: a day, time enough for
/// the person to sign in and answer.
pub(crate) const UNUSED_CLIENT_TTL_MS: i64 = 24 * 3_600_000;

macro_rules! grant_columns {
    () => {
        "g.id, g.client_id, c.name, g.user_id, g.can_write, g.schedule_id, g.resource, \
         g.created_at, g.last_used_at, g.revoked_at"
    };
}

/// The join that `grant_columns!` reads the client's name through.
macro_rules! client_join {
    () => {
        " JOIN oauth_clients c ON c.client_id = g.client_id"
    };
}

/// A grant from `grant_columns!`, starting at column `at`.
fn grant_from_row(r: &AnyRow, at: usize) -> Result<GrantInfo, StoreError> {
    let can_write: i64 = r.try_get(at + 4)?;
    Ok(GrantInfo {
        id: r.try_get(at)?,
        client_id: r.try_get(at + 1)?,
        client_name: r.try_get(at + 2)?,
        user_id: r.try_get(at + 3)?,
        can_write: can_write != 0,
        schedule_id: r.try_get(at + 5)?,
        resource: r.try_get(at + 6)?,
        created_at: r.try_get(at + 7)?,
        last_used_at: r.try_get(at + 8)?,
        revoked_at: r.try_get(at + 9)?,
    })
}

impl Store {
    /// Sets a user's password (its argon2id PHC string) and ends their sign-in sessions
    /// (a password changed because it leaked must shut out whoever used it); false when
    /// there is no such user.
    pub async fn set_password_hash(&self, user_id: i64, phc: &str) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("UPDATE users SET password_hash = $1 WHERE id = $2")
            .bind(phc)
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        // Whoever used the old password, or holds a sign-in link not yet spent, is shut
        // out with it.
        for sql in [
            "DELETE FROM web_sessions WHERE user_id = $1",
            "DELETE FROM signin_links WHERE user_id = $1",
        ] {
            sqlx::query(sql).bind(user_id).execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    /// The user with this e-mail and their password's PHC string, if they have one.
    pub async fn user_with_password(
        &self,
        email: &str,
    ) -> Result<Option<(User, Option<String>)>, StoreError> {
        let row = sqlx::query("SELECT id, name, email, password_hash FROM users WHERE email = $1")
            .bind(email)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| Ok((user_from_row(&r)?, r.try_get(3)?)))
            .transpose()
    }

    /// Registers a client.
    pub async fn add_client(&self, client: &OAuthClient) -> Result<(), StoreError> {
        let uris = serde_json::to_string(&client.redirect_uris)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        sqlx::query(
            "INSERT INTO oauth_clients (client_id, name, redirect_uris, created_at) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(&client.client_id)
        .bind(&client.name)
        .bind(uris)
        .bind(client.created_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Stores a client read from its metadata document, or replaces the one kept (its
    /// `created_at` is the time of the fetch: when it is to be fetched again).
    pub async fn put_client(&self, client: &OAuthClient) -> Result<(), StoreError> {
        let uris = serde_json::to_string(&client.redirect_uris)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        sqlx::query(
            "INSERT INTO oauth_clients (client_id, name, redirect_uris, created_at, kept_until) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (client_id) DO UPDATE SET \
             name = excluded.name, redirect_uris = excluded.redirect_uris, \
             created_at = excluded.created_at, kept_until = excluded.kept_until",
        )
        .bind(&client.client_id)
        .bind(&client.name)
        .bind(uris)
        .bind(client.created_at)
        .bind(client.kept_until)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn client(&self, client_id: &str) -> Result<Option<OAuthClient>, StoreError> {
        let row = sqlx::query(
            "SELECT client_id, name, redirect_uris, created_at, kept_until FROM oauth_clients \
             WHERE client_id = $1",
        )
        .bind(client_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else { return Ok(None) };
        let uris: String = r.try_get(2)?;
        Ok(Some(OAuthClient {
            client_id: r.try_get(0)?,
            name: r.try_get(1)?,
            redirect_uris: serde_json::from_str(&uris)
                .map_err(|e| StoreError::Corrupt(format!("a client's redirect URIs: {e}")))?,
            created_at: r.try_get(3)?,
            kept_until: r.try_get(4)?,
        }))
    }

    /// Records what a person allowed a client; its id.
    pub async fn add_grant(
        &self,
        client_id: &str,
        user_id: i64,
        can_write: bool,
        schedule_id: Option<i64>,
        resource: &str,
        now_ms: i64,
    ) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "INSERT INTO oauth_grants (client_id, user_id, can_write, schedule_id, resource, \
             created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(client_id)
        .bind(user_id)
        .bind(i64::from(can_write))
        .bind(schedule_id)
        .bind(resource)
        .bind(now_ms)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get(0)?)
    }

    /// A user's grants, newest first, revoked ones included.
    pub async fn grants(&self, user_id: i64) -> Result<Vec<GrantInfo>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            grant_columns!(),
            " FROM oauth_grants g",
            client_join!(),
            " WHERE g.user_id = $1 ORDER BY g.id DESC"
        ))
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| grant_from_row(r, 0)).collect()
    }

    /// Revokes a grant and all its tokens; false when it was not live. `user_id`, when
    /// given, must be the grant's (the command line revokes for one person).
    pub async fn revoke_grant(
        &self,
        grant_id: i64,
        user_id: Option<i64>,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query(
            "UPDATE oauth_grants SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL \
             AND ($3 IS NULL OR user_id = $3)",
        )
        .bind(now_ms)
        .bind(grant_id)
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 1 {
            sqlx::query(
                "UPDATE oauth_tokens SET revoked_at = $1 WHERE grant_id = $2 AND revoked_at IS NULL",
            )
            .bind(now_ms)
            .bind(grant_id)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    /// Stores an authorization code (by its hash).
    pub async fn add_code(
        &self,
        hash: &str,
        grant_id: i64,
        redirect_uri: &str,
        code_challenge: &str,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO oauth_codes (hash, grant_id, redirect_uri, code_challenge, expires_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(hash)
        .bind(grant_id)
        .bind(redirect_uri)
        .bind(code_challenge)
        .bind(expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// A code and whether it was spent, without spending it (the token endpoint checks
    /// a request before it spends the code).
    pub async fn code(&self, hash: &str) -> Result<Option<(CodeInfo, bool)>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT o.redirect_uri, o.code_challenge, o.expires_at, o.used_at, ",
            grant_columns!(),
            " FROM oauth_codes o JOIN oauth_grants g ON g.id = o.grant_id",
            client_join!(),
            " WHERE o.hash = $1"
        ))
        .bind(hash)
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else { return Ok(None) };
        let used: Option<i64> = r.try_get(3)?;
        Ok(Some((
            CodeInfo {
                redirect_uri: r.try_get(0)?,
                code_challenge: r.try_get(1)?,
                expires_at: r.try_get(2)?,
                grant: grant_from_row(&r, 4)?,
            },
            used.is_some(),
        )))
    }

    /// Spends a code: the first call wins, every later one is told it was spent.
    pub async fn spend_code(&self, hash: &str, now_ms: i64) -> Result<SpentCode, StoreError> {
        let done =
            sqlx::query("UPDATE oauth_codes SET used_at = $1 WHERE hash = $2 AND used_at IS NULL")
                .bind(now_ms)
                .bind(hash)
                .execute(&self.pool)
                .await?;
        let row = sqlx::query(concat!(
            "SELECT o.redirect_uri, o.code_challenge, o.expires_at, ",
            grant_columns!(),
            " FROM oauth_codes o JOIN oauth_grants g ON g.id = o.grant_id",
            client_join!(),
            " WHERE o.hash = $1"
        ))
        .bind(hash)
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else {
            return Ok(SpentCode::Unknown);
        };
        let grant = grant_from_row(&r, 3)?;
        if done.rows_affected() != 1 {
            return Ok(SpentCode::Again { grant_id: grant.id });
        }
        Ok(SpentCode::Fresh(CodeInfo {
            redirect_uri: r.try_get(0)?,
            code_challenge: r.try_get(1)?,
            expires_at: r.try_get(2)?,
            grant,
        }))
    }

    /// Stores one of a grant's tokens (by its hash).
    pub async fn add_grant_token(
        &self,
        grant_id: i64,
        kind: TokenKind,
        hash: &str,
        now_ms: i64,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO oauth_tokens (grant_id, kind, hash, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(grant_id)
        .bind(kind.as_str())
        .bind(hash)
        .bind(now_ms)
        .bind(expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The token of this kind with this hash, revoked or not (the caller decides: a
    /// revoked refresh token shown again is a replay), with its grant.
    pub async fn grant_token(
        &self,
        hash: &str,
        kind: TokenKind,
    ) -> Result<Option<GrantToken>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT t.id, t.created_at, t.expires_at, t.last_used_at, t.revoked_at, ",
            grant_columns!(),
            " FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id",
            client_join!(),
            " WHERE t.hash = $1 AND t.kind = $2"
        ))
        .bind(hash)
        .bind(kind.as_str())
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| {
            Ok(GrantToken {
                id: r.try_get(0)?,
                kind,
                created_at: r.try_get(1)?,
                expires_at: r.try_get(2)?,
                last_used_at: r.try_get(3)?,
                revoked_at: r.try_get(4)?,
                grant: grant_from_row(&r, 5)?,
            })
        })
        .transpose()
    }

    /// Marks an access token and its grant used now, to the minute (every MCP request
    /// authenticates: no write on each).
    pub async fn touch_grant_token(
        &self,
        token: &GrantToken,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let stale = |t: Option<i64>| t.is_none_or(|t| now_ms - t >= LAST_USE_PRECISION_MS);
        if stale(token.last_used_at) {
            sqlx::query("UPDATE oauth_tokens SET last_used_at = $1 WHERE id = $2")
                .bind(now_ms)
                .bind(token.id)
                .execute(&self.pool)
                .await?;
        }
        if stale(token.grant.last_used_at) {
            sqlx::query("UPDATE oauth_grants SET last_used_at = $1 WHERE id = $2")
                .bind(now_ms)
                .bind(token.grant.id)
                .execute(&self.pool)
                .await?;
        }
        Ok(())
    }

    /// Revokes one token if it is live; true when this call revoked it (the winner of
    /// a refresh-token rotation).
    pub async fn revoke_grant_token(&self, token_id: i64, now_ms: i64) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE oauth_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
        )
        .bind(now_ms)
        .bind(token_id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Deletes what can no longer be used: codes, tokens and sign-in sessions past their
    /// expiry, and clients registered over [`UNUSED_CLIENT_TTL_MS`] ago that never got a
    /// grant (registration is open to anyone: without this, abandoned or invented
    /// registrations would stay for ever). Revoked tokens not yet expired stay (a rotated
    /// refresh token shown again must still be recognised, to revoke its grant).
    pub async fn purge_expired_oauth(&self, now_ms: i64) -> Result<u64, StoreError> {
        let mut gone = 0;
        for (sql, before) in [
            ("DELETE FROM oauth_codes WHERE expires_at < $1", now_ms),
            ("DELETE FROM oauth_tokens WHERE expires_at < $1", now_ms),
            ("DELETE FROM web_sessions WHERE expires_at < $1", now_ms),
            ("DELETE FROM signin_links WHERE expires_at < $1", now_ms),
            (
                "DELETE FROM oauth_clients WHERE created_at < $1 AND NOT EXISTS \
                 (SELECT 1 FROM oauth_grants g WHERE g.client_id = oauth_clients.client_id)",
                now_ms.saturating_sub(UNUSED_CLIENT_TTL_MS),
            ),
        ] {
            gone += sqlx::query(sql)
                .bind(before)
                .execute(&self.pool)
                .await?
                .rows_affected();
        }
        Ok(gone)
    }

    /// Stores a sign-in session (by its hash).
    pub async fn add_web_session(
        &self,
        hash: &str,
        user_id: i64,
        now_ms: i64,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        self.add_signed_in(
            "INSERT INTO web_sessions (hash, user_id, created_at, expires_at) \
             VALUES ($1, $2, $3, $4)",
            (hash, user_id, now_ms, expires_at),
        )
        .await
    }

    /// A row of a secret that signs a person in (a session, a sign-in link).
    async fn add_signed_in(
        &self,
        sql: &'static str,
        (hash, user_id, now_ms, expires_at): (&str, i64, i64, i64),
    ) -> Result<(), StoreError> {
        sqlx::query(sql)
            .bind(hash)
            .bind(user_id)
            .bind(now_ms)
            .bind(expires_at)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The user a query by a secret's hash (`$1`) and the time (`$2`) finds, if any.
    async fn user_by_secret(
        &self,
        sql: &'static str,
        hash: &str,
        now_ms: i64,
    ) -> Result<Option<User>, StoreError> {
        let row = sqlx::query(sql)
            .bind(hash)
            .bind(now_ms)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(user_from_row).transpose()
    }

    /// Ends a sign-in session (sign-out); false when there was none with this hash.
    pub async fn delete_web_session(&self, hash: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM web_sessions WHERE hash = $1")
            .bind(hash)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The user of a live sign-in session.
    pub async fn web_session_user(
        &self,
        hash: &str,
        now_ms: i64,
    ) -> Result<Option<User>, StoreError> {
        self.user_by_secret(
            "SELECT u.id, u.name, u.email FROM web_sessions s JOIN users u ON u.id = s.user_id \
             WHERE s.hash = $1 AND s.expires_at > $2",
            hash,
            now_ms,
        )
        .await
    }

    /// Stores a one-time sign-in link (by its hash).
    pub async fn add_signin_link(
        &self,
        hash: &str,
        user_id: i64,
        now_ms: i64,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        self.add_signed_in(
            "INSERT INTO signin_links (hash, user_id, created_at, expires_at) \
             VALUES ($1, $2, $3, $4)",
            (hash, user_id, now_ms, expires_at),
        )
        .await
    }

    /// The user of a sign-in link that is neither spent nor expired, without spending
    /// it (the page that asks "sign in as …?").
    pub async fn signin_link_user(
        &self,
        hash: &str,
        now_ms: i64,
    ) -> Result<Option<User>, StoreError> {
        self.user_by_secret(
            "SELECT u.id, u.name, u.email FROM signin_links l JOIN users u ON u.id = l.user_id \
             WHERE l.hash = $1 AND l.used_at IS NULL AND l.expires_at > $2",
            hash,
            now_ms,
        )
        .await
    }

    /// Spends a sign-in link: its user for the first call within its life, None for
    /// every other (spent, expired or unknown: the same answer, on purpose).
    pub async fn spend_signin_link(
        &self,
        hash: &str,
        now_ms: i64,
    ) -> Result<Option<User>, StoreError> {
        let done = sqlx::query(
            "UPDATE signin_links SET used_at = $1 \
             WHERE hash = $2 AND used_at IS NULL AND expires_at > $1",
        )
        .bind(now_ms)
        .bind(hash)
        .execute(&self.pool)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(None);
        }
        // Spent just now, by this call (`used_at` is the time it set).
        self.user_by_secret(
            "SELECT u.id, u.name, u.email FROM signin_links l JOIN users u ON u.id = l.user_id \
             WHERE l.hash = $1 AND l.used_at = $2",
            hash,
            now_ms,
        )
        .await
    }

    /// When a live sign-in session ends (the event streams of the web screen end then).
    pub async fn web_session_expiry(
        &self,
        hash: &str,
        now_ms: i64,
    ) -> Result<Option<i64>, StoreError> {
        let row =
            sqlx::query("SELECT expires_at FROM web_sessions WHERE hash = $1 AND expires_at > $2")
                .bind(hash)
                .bind(now_ms)
                .fetch_optional(&self.pool)
                .await?;
        row.map(|r| r.try_get(0)).transpose().map_err(Into::into)
    }
}
