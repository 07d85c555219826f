-- PalmaPlan schema v1 (PostgreSQL). Times are Unix milliseconds; schedule states and journal
-- commands are the model crate's JSON. Keep in step with ../sqlite/0001_init.sql.
CREATE TABLE users (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);
CREATE TABLE tokens (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id),
    label TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    can_write BIGINT NOT NULL,
    schedule_id BIGINT,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at BIGINT
);
CREATE TABLE schedules (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    state TEXT NOT NULL,
    rank BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE TABLE roles (
    schedule_id BIGINT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users(id),
    role TEXT NOT NULL,
    PRIMARY KEY (schedule_id, user_id)
);
CREATE TABLE journal (
    schedule_id BIGINT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
    rank BIGINT NOT NULL,
    author BIGINT NOT NULL,
    at BIGINT NOT NULL,
    kind TEXT NOT NULL,
    target_rank BIGINT,
    commands TEXT NOT NULL,
    inverse TEXT NOT NULL,
    PRIMARY KEY (schedule_id, rank)
);
CREATE TABLE versions (
    id BIGSERIAL PRIMARY KEY,
    schedule_id BIGINT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    rank BIGINT NOT NULL,
    state TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    created_by BIGINT NOT NULL
);
CREATE INDEX versions_by_schedule ON versions (schedule_id, id);
