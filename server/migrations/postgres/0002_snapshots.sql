-- The journal is the truth: `state` is the snapshot at `snapshot_rank`; the current
-- state is that snapshot plus the journal entries after it. Existing states are the
-- current ones, so their snapshot rank is their rank.
ALTER TABLE schedules ADD COLUMN snapshot_rank BIGINT NOT NULL DEFAULT 0;
UPDATE schedules SET snapshot_rank = rank;
