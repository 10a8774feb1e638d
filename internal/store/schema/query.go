package schema

import (
	"strings"

	"github.com/gpuscout/gpuscout/internal/store"
)

// Column lists both stores read, in the order their scanners expect.
const (
	DocColumns = `id, kind, received_at, token_name, signed_by, gpu, provider, instance_type, region,
	matched_offering, host, created_at`
	TokenColumns = `id, name, hash, scopes, created_at, last_used, revoked, expires_at`
)

// ProbeWrite is the health probe's write, the same in both dialects (the
// nth parameter's marker from param): one row, upserted.
func ProbeWrite(param func(n int) string) string {
	return "INSERT INTO health (id, checked_at) VALUES (1, " + param(1) + ") ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at"
}

// ListQuery is the one query that lists documents for a filter (already
// checked, limit resolved), newest first, for either database: placeholder
// writes the nth parameter's marker ("?" for SQLite, "$n" for PostgreSQL).
func ListQuery(f store.Filter, limit int, withBody bool, placeholder func(n int) string) (string, []any) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return placeholder(len(args))
	}
	for _, c := range []struct{ col, v string }{
		{"kind", f.Kind}, {"gpu", f.GPU}, {"provider", f.Provider}, {"region", f.Region}, {"host", f.Host},
	} {
		if c.v != "" {
			where = append(where, c.col+" = "+arg(c.v))
		}
	}
	if len(f.GPUs) > 0 {
		in := make([]string, len(f.GPUs))
		for i, g := range f.GPUs {
			in[i] = arg(g)
		}
		where = append(where, "gpu IN ("+strings.Join(in, ", ")+")")
	}
	if !f.Since.IsZero() {
		where = append(where, "received_at >= "+arg(Micros(f.Since)))
	}
	q := "SELECT " + DocColumns
	if withBody {
		q += ", body"
	}
	q += " FROM documents"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY received_at DESC, seq DESC LIMIT " + arg(limit) + " OFFSET " + arg(f.Offset)
	return q, args
}

// CountQuery is the query counting the documents of kind ("": all), with
// param writing the dialect's placeholder (? or $1).
func CountQuery(kind string, param func(n int) string) (string, []any) {
	if kind == "" {
		return "SELECT count(*) FROM documents", nil
	}
	return "SELECT count(*) FROM documents WHERE kind = " + param(1), []any{kind}
}
