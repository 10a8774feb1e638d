// Package store keeps a team's documents for `gpuscout serve`: benchmark
// reports, advise plans and agent summaries, each stored whole as the JSON
// that was uploaded and indexed by a few fields for listing, plus the API's
// access tokens (hashes only). One interface, two implementations (SQLite
// for one machine, PostgreSQL for a team) held to one conformance suite.
//
// Integrity: PutDocument returns only after the document is committed
// (durable before the server answers 2xx), and it is idempotent: a
// document's ID is the SHA-256 of its body, so an upload sent twice is
// stored once. A write the database refuses for now says why when it can
// (ErrBusy, ErrReadOnly, ErrFull), and ProbeWrite asks the same of a
// one-row write, for /healthz.
//
// ParseDSN reads serve's and token's --db: which backend, where, and a
// form of it safe to log (never a password).
package store

import (
	"context"
	"errors"
	"time"
)

// Kinds of document.
const (
	KindBench = "bench" // a `gpuscout bench` report (benchreport.Document)
	KindPlan  = "plan"  // an `advise -o json` result
	KindAgent = "agent" // an agent's hourly summary
)

// Document is one uploaded document and its index fields.
type Document struct {
	ID         string    // hex SHA-256 of Body: the idempotency key
	Kind       string    // KindBench, KindPlan or KindAgent
	Body       []byte    // the JSON exactly as uploaded
	ReceivedAt time.Time // when the server stored it (UTC)
	TokenName  string    // the uploader's token name
	// Signed names the node key whose HMAC over Body was verified; "" when
	// the upload carried no signature (or none the server could check).
	SignedBy string
	// Index fields, taken from the body by the server; "" when absent.
	GPU             string // canonical GPU name (bench: the first GPU's)
	Provider        string
	InstanceType    string
	Region          string
	MatchedOffering string    // provider/instance-type/region
	Host            string    // the node's hostname
	CreatedAt       time.Time // the document's own created_at (zero: unknown)
}

// Filter selects documents; empty fields match everything.
type Filter struct {
	Kind, GPU, Provider, Region, Host string
	// GPUs, when not empty, selects documents whose GPU is any of them
	// (at most MaxGPUs names): a family name such as "H100" resolved to the
	// catalog's variants.
	GPUs   []string
	Since  time.Time
	Limit  int // 0: DefaultLimit; at most MaxLimit
	Offset int
}

// List bounds.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
	MaxGPUs      = 64
)

// Token is an API token: only the hash of its secret is stored.
type Token struct {
	ID        string
	Name      string
	Hash      []byte   // SHA-256 of the secret
	Scopes    []string // "read", "write", "admin"
	CreatedAt time.Time
	LastUsed  time.Time // zero: never
	// ExpiresAt is when the token stops working; zero: never.
	ExpiresAt time.Time
	Revoked   bool
}

// Expired reports whether the token has expired at now.
func (t *Token) Expired(now time.Time) bool {
	return !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt)
}

// Errors every implementation returns (wrapped).
var (
	ErrNotFound = errors.New("not found")
	ErrExists   = errors.New("already exists")
)

// Why a write failed, when the store can tell (wrapped, with the
// database's own error beside them): the server answers 503 with
// Retry-After for each, and /healthz names it.
var (
	// ErrBusy: another process held the database's write lock for longer
	// than the busy timeout (SQLite), or a lock wait timed out.
	ErrBusy = errors.New("the database is locked by another writer")
	// ErrReadOnly: the database takes no writes (a read-only file or
	// filesystem, a PostgreSQL standby or a read-only transaction mode).
	ErrReadOnly = errors.New("the database is read-only")
	// ErrFull: the disk or the database is full.
	ErrFull = errors.New("the disk or the database is full")
)

// Mark returns err as an error that also is kind (errors.Is), with err's
// message; nil for nil.
func Mark(err, kind error) error {
	if err == nil {
		return nil
	}
	return &marked{err, kind}
}

type marked struct{ err, kind error }

func (m *marked) Error() string   { return m.err.Error() }
func (m *marked) Unwrap() []error { return []error{m.err, m.kind} }

// Store is where documents and tokens live.
type Store interface {
	// PutDocument stores d (its ID must be the SHA-256 of its body) and
	// reports whether it was new; a document already stored is left as it
	// is (created false, no error). It returns after the commit.
	PutDocument(ctx context.Context, d *Document) (created bool, err error)
	// GetDocument returns the document with the ID (ErrNotFound).
	GetDocument(ctx context.Context, id string) (*Document, error)
	// GetDocuments returns the stored documents among ids, with their
	// bodies, in one query (one round trip): in the order of ids, an ID
	// named twice once, an ID not stored (or not a valid ID) left out. At
	// most MaxLimit ids; more is an error, none an empty answer.
	GetDocuments(ctx context.Context, ids []string) ([]Document, error)
	// ListDocuments returns documents matching f, newest first, without
	// their bodies (Body nil) unless withBody.
	ListDocuments(ctx context.Context, f Filter, withBody bool) ([]Document, error)
	// CountDocuments returns how many documents of the kind are stored
	// ("": of every kind).
	CountDocuments(ctx context.Context, kind string) (int, error)
	// CreateToken stores a token (ErrExists for a taken name).
	CreateToken(ctx context.Context, t *Token) error
	// TokenByHash returns the token with the hash (ErrNotFound).
	TokenByHash(ctx context.Context, hash []byte) (*Token, error)
	// TouchToken records a use of the token.
	TouchToken(ctx context.Context, id string, at time.Time) error
	ListTokens(ctx context.Context) ([]Token, error)
	RevokeToken(ctx context.Context, name string) error
	// Ping checks the store answers (for /healthz).
	Ping(ctx context.Context) error
	// ProbeWrite commits a one-row write to the store's health table and
	// says what stopped it (ErrBusy, ErrReadOnly, ErrFull, or another
	// error): /healthz's check that uploads can be stored. It costs a
	// commit; callers space their probes.
	ProbeWrite(ctx context.Context) error
	Close() error
}
