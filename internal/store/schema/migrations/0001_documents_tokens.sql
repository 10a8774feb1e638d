-- Version 1: uploaded documents and API tokens.
-- Written once for both databases: {{SEQ}}, {{BLOB}} and {{BOOL_FALSE}} are
-- the only dialect differences and are replaced by package schema.
-- Times are integer microseconds since the Unix epoch, UTC (exact in both).

CREATE TABLE documents (
    seq              {{SEQ}},
    id               TEXT NOT NULL UNIQUE,
    kind             TEXT NOT NULL CHECK (kind IN ('bench', 'plan', 'agent')),
    body             {{BLOB}} NOT NULL,
    received_at      BIGINT NOT NULL,
    token_name       TEXT NOT NULL,
    signed_by        TEXT NOT NULL,
    gpu              TEXT NOT NULL,
    provider         TEXT NOT NULL,
    instance_type    TEXT NOT NULL,
    region           TEXT NOT NULL,
    matched_offering TEXT NOT NULL,
    host             TEXT NOT NULL,
    created_at       BIGINT
);

-- Listing is newest first (received_at, then insertion order) under any
-- one filter; each filter column leads an index in that order.
CREATE INDEX documents_received ON documents (received_at DESC, seq DESC);
CREATE INDEX documents_kind ON documents (kind, received_at DESC, seq DESC);
CREATE INDEX documents_gpu ON documents (gpu, received_at DESC, seq DESC);
CREATE INDEX documents_provider ON documents (provider, received_at DESC, seq DESC);
CREATE INDEX documents_region ON documents (region, received_at DESC, seq DESC);
CREATE INDEX documents_host ON documents (host, received_at DESC, seq DESC);

CREATE TABLE tokens (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    hash       {{BLOB}} NOT NULL UNIQUE,
    scopes     TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_used  BIGINT,
    revoked    BOOLEAN NOT NULL DEFAULT {{BOOL_FALSE}}
);
