-- How long a client read from its metadata document is used before it is fetched again
-- (postgres; keep in step with ../sqlite/0005_client_documents_kept.sql): the document's
-- Cache-Control, bounded. Null for registered clients (and documents kept before it).
ALTER TABLE oauth_clients ADD COLUMN kept_until BIGINT;
