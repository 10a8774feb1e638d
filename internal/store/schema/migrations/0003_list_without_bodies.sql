-- Version 3: listing documents of a kind reads no body.
-- A listing asks for every column but the body; in SQLite, reading the
-- columns after the body of a row walks the body's overflow pages (a
-- 100 KiB plan is about 25 pages), so listing the newest 1000 bench reports
-- read their bodies from disk though it never used them. The index on kind,
-- which every dashboard listing and API listing by kind uses, now holds
-- those columns too: the listing is answered from the index alone (a
-- covering index; PostgreSQL can scan it index-only).

DROP INDEX documents_kind;
CREATE INDEX documents_kind ON documents (kind, received_at DESC, seq DESC, id, token_name, signed_by, gpu, provider,
    instance_type, region, matched_offering, host, created_at);
