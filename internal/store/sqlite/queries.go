package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/schema"
)

// statements are prepared once at Open.
type statements struct {
	putDoc, getDoc, getDocs         *sql.Stmt
	createToken, tokenByHash, touch *sql.Stmt
	listTokens, revoke, probe       *sql.Stmt
}

const (
	docColumns   = schema.DocColumns
	tokenColumns = schema.TokenColumns
)

func (s *Store) prepare(ctx context.Context) error {
	for _, p := range []struct {
		db  *sql.DB
		dst **sql.Stmt
		sql string
	}{
		{s.w, &s.stmts.putDoc, `INSERT INTO documents (id, kind, body, received_at, token_name, signed_by, gpu,
			provider, instance_type, region, matched_offering, host, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`},
		{s.r, &s.stmts.getDoc, `SELECT ` + docColumns + `, body FROM documents WHERE id = ?`},
		// The IDs as one JSON array: one statement for any number of them,
		// each looked up by the id's unique index.
		{s.r, &s.stmts.getDocs, `SELECT ` + docColumns + `, body FROM documents WHERE id IN (SELECT value FROM json_each(?))`},
		{s.w, &s.stmts.createToken, `INSERT INTO tokens (` + tokenColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`},
		{s.r, &s.stmts.tokenByHash, `SELECT ` + tokenColumns + ` FROM tokens WHERE hash = ?`},
		{s.w, &s.stmts.touch, `UPDATE tokens SET last_used = ? WHERE id = ?`},
		{s.r, &s.stmts.listTokens, `SELECT ` + tokenColumns + ` FROM tokens ORDER BY name`},
		{s.w, &s.stmts.revoke, `UPDATE tokens SET revoked = 1 WHERE name = ?`},
		{s.w, &s.stmts.probe, schema.ProbeWrite(func(int) string { return "?" })},
	} {
		st, err := p.db.PrepareContext(ctx, p.sql)
		if err != nil {
			return fmt.Errorf("prepare %.40q: %w", p.sql, err)
		}
		*p.dst = st
	}
	return nil
}

func (st *statements) close() {
	for _, s := range []*sql.Stmt{st.putDoc, st.getDoc, st.getDocs, st.createToken, st.tokenByHash, st.touch, st.listTokens, st.revoke, st.probe} {
		if s != nil {
			s.Close()
		}
	}
}

// nullMicros is t as the stored integer, NULL for the zero time.
func nullMicros(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: schema.Micros(t), Valid: true}
}

func fromNull(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return schema.FromMicros(n.Int64)
}

type scanner interface{ Scan(dest ...any) error }

func scanDoc(sc scanner, withBody bool) (store.Document, error) {
	var d store.Document
	var recv int64
	var created sql.NullInt64
	dest := []any{&d.ID, &d.Kind, &recv, &d.TokenName, &d.SignedBy, &d.GPU, &d.Provider, &d.InstanceType,
		&d.Region, &d.MatchedOffering, &d.Host, &created}
	if withBody {
		dest = append(dest, &d.Body)
	}
	if err := sc.Scan(dest...); err != nil {
		return d, err
	}
	d.ReceivedAt, d.CreatedAt = schema.FromMicros(recv), fromNull(created)
	if withBody && d.Body == nil {
		d.Body = []byte{}
	}
	return d, nil
}

// GetDocument returns the document with the ID.
func (s *Store) GetDocument(ctx context.Context, id string) (*store.Document, error) {
	d, err := scanDoc(s.stmts.getDoc.QueryRowContext(ctx, id), true)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("document %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: get document %q: %w", id, err)
	}
	return &d, nil
}

// GetDocuments returns the stored documents among ids, in their order, in
// one query.
func (s *Store) GetDocuments(ctx context.Context, ids []string) ([]store.Document, error) {
	ids, err := store.CheckIDs(ids)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	arg, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("sqlite: get documents: %w", err)
	}
	rows, err := s.stmts.getDocs.QueryContext(ctx, string(arg))
	if err != nil {
		return nil, fmt.Errorf("sqlite: get documents: %w", err)
	}
	defer rows.Close()
	out := make([]store.Document, 0, len(ids))
	for rows.Next() {
		d, err := scanDoc(rows, true)
		if err != nil {
			return nil, fmt.Errorf("sqlite: get documents: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: get documents: %w", err)
	}
	return store.InIDOrder(ids, out), nil
}

// CountDocuments returns how many documents of the kind are stored ("": all).
func (s *Store) CountDocuments(ctx context.Context, kind string) (int, error) {
	q, args := schema.CountQuery(kind, func(int) string { return "?" })
	var n int
	if err := s.r.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: count documents: %w", err)
	}
	return n, nil
}

// ListDocuments returns the documents matching f, newest first.
func (s *Store) ListDocuments(ctx context.Context, f store.Filter, withBody bool) ([]store.Document, error) {
	limit, err := store.CheckFilter(&f)
	if err != nil {
		return nil, err
	}
	q, args := schema.ListQuery(f, limit, withBody, func(int) string { return "?" })
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list documents: %w", err)
	}
	defer rows.Close()
	var out []store.Document
	for rows.Next() {
		d, err := scanDoc(rows, withBody)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list documents: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list documents: %w", err)
	}
	return out, nil
}

// CreateToken stores t (store.ErrExists for a taken name).
func (s *Store) CreateToken(ctx context.Context, t *store.Token) error {
	if err := store.CheckToken(t); err != nil {
		return err
	}
	_, err := s.stmts.createToken.ExecContext(ctx, t.ID, t.Name, t.Hash, strings.Join(t.Scopes, ","),
		schema.Micros(t.CreatedAt), nullMicros(t.LastUsed), t.Revoked, nullMicros(t.ExpiresAt))
	if isUnique(err) {
		return fmt.Errorf("token %q: %w", t.Name, store.ErrExists)
	}
	if err != nil {
		return fmt.Errorf("sqlite: create token %q: %w", t.Name, classify(err))
	}
	return nil
}

func scanToken(sc scanner) (store.Token, error) {
	var t store.Token
	var scopes string
	var created int64
	var used, expires sql.NullInt64
	if err := sc.Scan(&t.ID, &t.Name, &t.Hash, &scopes, &created, &used, &t.Revoked, &expires); err != nil {
		return t, err
	}
	if scopes != "" {
		t.Scopes = strings.Split(scopes, ",")
	}
	t.CreatedAt, t.LastUsed, t.ExpiresAt = schema.FromMicros(created), fromNull(used), fromNull(expires)
	return t, nil
}

// TokenByHash returns the token with the hash.
func (s *Store) TokenByHash(ctx context.Context, hash []byte) (*store.Token, error) {
	t, err := scanToken(s.stmts.tokenByHash.QueryRowContext(ctx, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("token: %w", store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: token by hash: %w", err)
	}
	return &t, nil
}

// TouchToken records a use of the token with the ID.
func (s *Store) TouchToken(ctx context.Context, id string, at time.Time) error {
	return s.update(ctx, s.stmts.touch, fmt.Sprintf("token id %q", id), schema.Micros(at), id)
}

// RevokeToken marks the token with the name revoked.
func (s *Store) RevokeToken(ctx context.Context, name string) error {
	return s.update(ctx, s.stmts.revoke, fmt.Sprintf("token %q", name), name)
}

func (s *Store) update(ctx context.Context, st *sql.Stmt, what string, args ...any) error {
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, classify(err))
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err != nil {
			return fmt.Errorf("sqlite: %s: %w", what, err)
		}
		return fmt.Errorf("%s: %w", what, store.ErrNotFound)
	}
	return nil
}

// ListTokens returns every token, by name.
func (s *Store) ListTokens(ctx context.Context) ([]store.Token, error) {
	rows, err := s.stmts.listTokens.QueryContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list tokens: %w", err)
	}
	defer rows.Close()
	var out []store.Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list tokens: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
