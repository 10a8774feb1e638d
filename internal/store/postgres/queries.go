package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/schema"
	"github.com/jackc/pgx/v5"
)

// pgx prepares and caches each statement per connection the first time it
// runs, so these constant queries are prepared statements.
const (
	docColumns   = schema.DocColumns
	tokenColumns = schema.TokenColumns

	putDoc = `INSERT INTO documents (id, kind, body, received_at, token_name, signed_by, gpu, provider,
	instance_type, region, matched_offering, host, created_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (id) DO NOTHING`
	getDoc      = `SELECT ` + docColumns + `, body FROM documents WHERE id = $1`
	getDocs     = `SELECT ` + docColumns + `, body FROM documents WHERE id = ANY($1)` // $1: text[]
	createToken = `INSERT INTO tokens (` + tokenColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
	tokenByHash = `SELECT ` + tokenColumns + ` FROM tokens WHERE hash = $1`
	touchToken  = `UPDATE tokens SET last_used = $1 WHERE id = $2`
	listTokens  = `SELECT ` + tokenColumns + ` FROM tokens ORDER BY name`
	revokeToken = `UPDATE tokens SET revoked = TRUE WHERE name = $1`
)

var probeWrite = schema.ProbeWrite(func(n int) string { return fmt.Sprintf("$%d", n) })

// micros is t as the stored integer, nil (NULL) for the zero time.
func micros(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	us := schema.Micros(t)
	return &us
}

func fromMicros(us *int64) time.Time {
	if us == nil {
		return time.Time{}
	}
	return schema.FromMicros(*us)
}

// PutDocument stores d unless a document with its ID is stored; it returns
// after the commit.
func (s *Store) PutDocument(ctx context.Context, d *store.Document) (bool, error) {
	if err := store.CheckDocument(d); err != nil {
		return false, err
	}
	tag, err := s.pool.Exec(ctx, putDoc, d.ID, d.Kind, d.Body, schema.Micros(d.ReceivedAt), d.TokenName,
		d.SignedBy, d.GPU, d.Provider, d.InstanceType, d.Region, d.MatchedOffering, d.Host, micros(d.CreatedAt))
	if err != nil {
		return false, fmt.Errorf("postgres: put document %s: %w", d.ID, classify(err))
	}
	return tag.RowsAffected() == 1, nil
}

func scanDoc(row pgx.Row, withBody bool) (store.Document, error) {
	var d store.Document
	var recv int64
	var created *int64
	dest := []any{&d.ID, &d.Kind, &recv, &d.TokenName, &d.SignedBy, &d.GPU, &d.Provider, &d.InstanceType,
		&d.Region, &d.MatchedOffering, &d.Host, &created}
	if withBody {
		dest = append(dest, &d.Body)
	}
	if err := row.Scan(dest...); err != nil {
		return d, err
	}
	d.ReceivedAt, d.CreatedAt = schema.FromMicros(recv), fromMicros(created)
	return d, nil
}

// GetDocument returns the document with the ID.
func (s *Store) GetDocument(ctx context.Context, id string) (*store.Document, error) {
	d, err := scanDoc(s.pool.QueryRow(ctx, getDoc, id), true)
	if errors.Is(err, errNoRows) {
		return nil, fmt.Errorf("document %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: get document %q: %w", id, err)
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
	rows, err := s.pool.Query(ctx, getDocs, ids)
	if err != nil {
		return nil, fmt.Errorf("postgres: get documents: %w", err)
	}
	defer rows.Close()
	out := make([]store.Document, 0, len(ids))
	for rows.Next() {
		d, err := scanDoc(rows, true)
		if err != nil {
			return nil, fmt.Errorf("postgres: get documents: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: get documents: %w", err)
	}
	return store.InIDOrder(ids, out), nil
}

// CountDocuments returns how many documents of the kind are stored ("": all).
func (s *Store) CountDocuments(ctx context.Context, kind string) (int, error) {
	q, args := schema.CountQuery(kind, func(n int) string { return fmt.Sprintf("$%d", n) })
	var n int
	if err := s.pool.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count documents: %w", err)
	}
	return n, nil
}

// ListDocuments returns the documents matching f, newest first.
func (s *Store) ListDocuments(ctx context.Context, f store.Filter, withBody bool) ([]store.Document, error) {
	limit, err := store.CheckFilter(&f)
	if err != nil {
		return nil, err
	}
	q, args := schema.ListQuery(f, limit, withBody, func(n int) string { return fmt.Sprintf("$%d", n) })
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list documents: %w", err)
	}
	defer rows.Close()
	var out []store.Document
	for rows.Next() {
		d, err := scanDoc(rows, withBody)
		if err != nil {
			return nil, fmt.Errorf("postgres: list documents: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: list documents: %w", err)
	}
	return out, nil
}

// CreateToken stores t (store.ErrExists for a taken name).
func (s *Store) CreateToken(ctx context.Context, t *store.Token) error {
	if err := store.CheckToken(t); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, createToken, t.ID, t.Name, t.Hash, strings.Join(t.Scopes, ","),
		schema.Micros(t.CreatedAt), micros(t.LastUsed), t.Revoked, micros(t.ExpiresAt))
	if isUnique(err) {
		return fmt.Errorf("token %q: %w", t.Name, store.ErrExists)
	}
	if err != nil {
		return fmt.Errorf("postgres: create token %q: %w", t.Name, classify(err))
	}
	return nil
}

func scanToken(row pgx.Row) (store.Token, error) {
	var t store.Token
	var scopes string
	var created int64
	var used, expires *int64
	if err := row.Scan(&t.ID, &t.Name, &t.Hash, &scopes, &created, &used, &t.Revoked, &expires); err != nil {
		return t, err
	}
	if scopes != "" {
		t.Scopes = strings.Split(scopes, ",")
	}
	t.CreatedAt, t.LastUsed, t.ExpiresAt = schema.FromMicros(created), fromMicros(used), fromMicros(expires)
	return t, nil
}

// TokenByHash returns the token with the hash.
func (s *Store) TokenByHash(ctx context.Context, hash []byte) (*store.Token, error) {
	t, err := scanToken(s.pool.QueryRow(ctx, tokenByHash, hash))
	if errors.Is(err, errNoRows) {
		return nil, fmt.Errorf("token: %w", store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: token by hash: %w", err)
	}
	return &t, nil
}

// TouchToken records a use of the token with the ID.
func (s *Store) TouchToken(ctx context.Context, id string, at time.Time) error {
	return s.update(ctx, fmt.Sprintf("token id %q", id), touchToken, schema.Micros(at), id)
}

// RevokeToken marks the token with the name revoked.
func (s *Store) RevokeToken(ctx context.Context, name string) error {
	return s.update(ctx, fmt.Sprintf("token %q", name), revokeToken, name)
}

func (s *Store) update(ctx context.Context, what, sql string, args ...any) error {
	tag, err := s.pool.Exec(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", what, classify(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%s: %w", what, store.ErrNotFound)
	}
	return nil
}

// ListTokens returns every token, by name.
func (s *Store) ListTokens(ctx context.Context) ([]store.Token, error) {
	rows, err := s.pool.Query(ctx, listTokens)
	if err != nil {
		return nil, fmt.Errorf("postgres: list tokens: %w", err)
	}
	defer rows.Close()
	var out []store.Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: list tokens: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
