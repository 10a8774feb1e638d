-- Version 2: token expiry and the health check's table.

-- When a token stops working (microseconds since the epoch, UTC); NULL: never.
ALTER TABLE tokens ADD COLUMN expires_at BIGINT;

-- /healthz's write probe updates its one row: a commit as small as one gets,
-- which fails as an upload would when the database takes no writes.
CREATE TABLE health (
    id         INTEGER PRIMARY KEY,
    checked_at BIGINT NOT NULL
);
