// Package store keeps a team's documents for `gpuscout serve`: benchmark
// reports, advise plans and agent summaries, each stored whole as the JSON
// that was uploaded and indexed by a few fields for listing, plus the API's
// access tokens (hashes only). One interface, two implementations (SQLite
// for one machine, PostgreSQL for a team) held to one conformance suite.
//
// Integrity: PutDocument returns only after the document is committed
// (durable before the server answers 2xx), and it is idempotent: a
// document's ID is the SHA-256 of its body, so an upload sent twice is
// stored once.
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
	Revoked   bool
}

// Errors every implementation returns (wrapped).
var (
	ErrNotFound = errors.New("not found")
	ErrExists   = errors.New("already exists")
)

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
	Close() error
}
