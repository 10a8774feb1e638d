// Package storetest holds what every store.Store implementation is held to:
// Run, one conformance suite, and Memory, an in-memory Store for the tests
// of packages that need a store but not a database.
package storetest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// Memory returns an empty in-memory store.Store, safe for concurrent use.
// It keeps nothing after the process ends; it is for tests.
func Memory() store.Store {
	return &memory{docs: map[string]store.Document{}}
}

type memory struct {
	mu     sync.Mutex
	docs   map[string]store.Document
	order  []string // insertion order, the tie-break of equal ReceivedAt
	tokens []store.Token
	closed bool
}

func (m *memory) PutDocument(ctx context.Context, d *store.Document) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := store.CheckDocument(d); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.docs[d.ID]; ok {
		return false, nil
	}
	c := *d
	c.Body = bytes.Clone(d.Body)
	c.ReceivedAt = c.ReceivedAt.UTC().Truncate(store.TimePrecision)
	c.CreatedAt = c.CreatedAt.UTC().Truncate(store.TimePrecision)
	m.docs[d.ID] = c
	m.order = append(m.order, d.ID)
	return true, nil
}

func (m *memory) GetDocument(ctx context.Context, id string) (*store.Document, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.docs[id]
	if !ok {
		return nil, fmt.Errorf("document %q: %w", id, store.ErrNotFound)
	}
	d.Body = bytes.Clone(d.Body)
	return &d, nil
}

func (m *memory) GetDocuments(ctx context.Context, ids []string) ([]store.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids, err := store.CheckIDs(ids)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Document
	for _, id := range ids {
		if d, ok := m.docs[id]; ok {
			d.Body = bytes.Clone(d.Body)
			out = append(out, d)
		}
	}
	return out, nil
}

func (m *memory) ListDocuments(ctx context.Context, f store.Filter, withBody bool) ([]store.Document, error) {
	limit, err := store.CheckFilter(&f)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Document
	for i := len(m.order) - 1; i >= 0; i-- {
		d := m.docs[m.order[i]]
		if (f.Kind != "" && d.Kind != f.Kind) || (f.GPU != "" && d.GPU != f.GPU) ||
			(f.Provider != "" && d.Provider != f.Provider) || (f.Region != "" && d.Region != f.Region) ||
			(f.Host != "" && d.Host != f.Host) || (!f.Since.IsZero() && d.ReceivedAt.Before(f.Since)) ||
			(len(f.GPUs) > 0 && !slices.Contains(f.GPUs, d.GPU)) {
			continue
		}
		if withBody {
			d.Body = bytes.Clone(d.Body)
		} else {
			d.Body = nil
		}
		out = append(out, d)
	}
	// Newest first; documents received at the same instant keep the
	// reverse of their insertion order (the stable sort keeps it).
	slices.SortStableFunc(out, func(a, b store.Document) int { return b.ReceivedAt.Compare(a.ReceivedAt) })
	if f.Offset >= len(out) {
		return nil, nil
	}
	out = out[f.Offset:]
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (m *memory) CountDocuments(ctx context.Context, kind string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, d := range m.docs {
		if kind == "" || d.Kind == kind {
			n++
		}
	}
	return n, nil
}

func (m *memory) CreateToken(ctx context.Context, t *store.Token) error {
	if err := store.CheckToken(t); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range m.tokens {
		if o.Name == t.Name || o.ID == t.ID || bytes.Equal(o.Hash, t.Hash) {
			return fmt.Errorf("token %q: %w", t.Name, store.ErrExists)
		}
	}
	c := *t
	c.Hash = bytes.Clone(t.Hash)
	c.Scopes = slices.Clone(t.Scopes)
	c.CreatedAt = c.CreatedAt.UTC().Truncate(store.TimePrecision)
	c.LastUsed = c.LastUsed.UTC().Truncate(store.TimePrecision)
	c.ExpiresAt = c.ExpiresAt.UTC().Truncate(store.TimePrecision)
	m.tokens = append(m.tokens, c)
	return nil
}

func (m *memory) TokenByHash(ctx context.Context, hash []byte) (*store.Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.tokens {
		if bytes.Equal(t.Hash, hash) {
			t.Hash = bytes.Clone(t.Hash)
			t.Scopes = slices.Clone(t.Scopes)
			return &t, nil
		}
	}
	return nil, fmt.Errorf("token: %w", store.ErrNotFound)
}

func (m *memory) TouchToken(ctx context.Context, id string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.tokens {
		if m.tokens[i].ID == id {
			m.tokens[i].LastUsed = at.UTC().Truncate(store.TimePrecision)
			return nil
		}
	}
	return fmt.Errorf("token id %q: %w", id, store.ErrNotFound)
}

func (m *memory) ListTokens(ctx context.Context) ([]store.Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]store.Token, 0, len(m.tokens))
	for _, t := range m.tokens {
		t.Hash = bytes.Clone(t.Hash)
		t.Scopes = slices.Clone(t.Scopes)
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b store.Token) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (m *memory) RevokeToken(ctx context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.tokens {
		if m.tokens[i].Name == name {
			m.tokens[i].Revoked = true
			return nil
		}
	}
	return fmt.Errorf("token %q: %w", name, store.ErrNotFound)
}

func (m *memory) Ping(ctx context.Context) error { return ctx.Err() }

func (m *memory) ProbeWrite(ctx context.Context) error { return ctx.Err() }

func (m *memory) Close() error { return nil }
