package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// TimePrecision is the precision every store keeps times to (that of
// PostgreSQL's timestamptz); finer parts are truncated when stored.
const TimePrecision = time.Microsecond

// MaxOffset bounds Filter.Offset.
const MaxOffset = 1_000_000

// CheckDocument reports what is wrong with d before it is stored: an
// unknown kind, an empty body, or an ID that is not the hex SHA-256 of the
// body. Implementations call it first in PutDocument.
func CheckDocument(d *Document) error {
	if d == nil {
		return fmt.Errorf("document: nil")
	}
	switch d.Kind {
	case KindBench, KindPlan, KindAgent:
	default:
		return fmt.Errorf("document kind %q: want %q, %q or %q", d.Kind, KindBench, KindPlan, KindAgent)
	}
	if len(d.Body) == 0 {
		return fmt.Errorf("document body: empty")
	}
	if want := DocumentID(d.Body); d.ID != want {
		return fmt.Errorf("document id %q: want the hex SHA-256 of the body, %s", d.ID, want)
	}
	return nil
}

// DocumentID is the ID of a document with the body: its hex SHA-256.
func DocumentID(body []byte) string {
	s := sha256.Sum256(body)
	return hex.EncodeToString(s[:])
}

// ValidID reports whether id can be a document's ID: 64 lower-case hex
// digits (what DocumentID writes).
func ValidID(id string) bool {
	if len(id) != 2*sha256.Size {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// CheckFilter checks f's bounds and returns the limit to use: DefaultLimit
// for 0, an error for a limit outside 0..MaxLimit or an offset outside
// 0..MaxOffset.
func CheckFilter(f *Filter) (limit int, err error) {
	switch {
	case f.Limit < 0 || f.Limit > MaxLimit:
		return 0, fmt.Errorf("limit %d: want 0 (default %d) to %d", f.Limit, DefaultLimit, MaxLimit)
	case f.Offset < 0 || f.Offset > MaxOffset:
		return 0, fmt.Errorf("offset %d: want 0 to %d", f.Offset, MaxOffset)
	case len(f.GPUs) > MaxGPUs:
		return 0, fmt.Errorf("gpus: %d names; want at most %d", len(f.GPUs), MaxGPUs)
	case f.Limit == 0:
		return DefaultLimit, nil
	}
	return f.Limit, nil
}

// CheckIDs checks the IDs of a GetDocuments call and returns the ones to
// look up: the valid IDs (ValidID; no other can be stored), each once, in
// their first order. More than MaxLimit ids is an error.
func CheckIDs(ids []string) ([]string, error) {
	if len(ids) > MaxLimit {
		return nil, fmt.Errorf("ids: %d; want at most %d", len(ids), MaxLimit)
	}
	out := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if ValidID(id) && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// InIDOrder returns docs (found by the IDs, which CheckIDs returned) in
// the order of ids; an ID with no document is left out.
func InIDOrder(ids []string, docs []Document) []Document {
	at := make(map[string]int, len(docs))
	for i := range docs {
		at[docs[i].ID] = i
	}
	out := make([]Document, 0, len(docs))
	for _, id := range ids {
		if i, ok := at[id]; ok {
			out = append(out, docs[i])
		}
	}
	return out
}

// CheckToken reports a token that cannot be stored: one without an ID, a
// name or a hash, or with an unknown scope.
func CheckToken(t *Token) error {
	if t == nil || t.ID == "" || t.Name == "" || len(t.Hash) == 0 {
		return fmt.Errorf("token: id, name and hash are required")
	}
	for _, s := range t.Scopes {
		switch s {
		case "read", "write", "admin":
		default:
			return fmt.Errorf("token %q scope %q: want read, write or admin", t.Name, s)
		}
	}
	return nil
}
