-- The journal is the truth: a schedule's state is its latest snapshot plus the journal
-- entries after it. Snapshots get a table of their own, so that the schedules rows stay
-- small (a poll reads a rank there; on SQLite a large state in the same row is walked
-- through before the columns after it). Existing states are the current ones, so each
-- becomes a snapshot at its schedule's rank.
CREATE TABLE snapshots (
    schedule_id BIGINT PRIMARY KEY REFERENCES schedules(id) ON DELETE CASCADE,
    rank BIGINT NOT NULL,
    state TEXT NOT NULL
);
INSERT INTO snapshots (schedule_id, rank, state) SELECT id, rank, state FROM schedules;
ALTER TABLE schedules DROP COLUMN state;
