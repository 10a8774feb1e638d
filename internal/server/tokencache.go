package server

import (
	"context"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// Token lookups are cached for tokenCacheTTL: every request with a token
// would otherwise read the store (and every dashboard page is one). A token
// revoked through this server is forgotten at once; one revoked through
// another server on the same database stops working here within the TTL,
// as an upload to that server shows on this one's cached pages.
const (
	tokenCacheTTL  = 2 * time.Second
	tokenCacheSize = 1024 // entries; a full cache starts afresh
)

type tokenEntry struct {
	t  *store.Token
	at time.Time
}

type tokenCache struct {
	mu sync.Mutex
	m  map[[32]byte]tokenEntry
}

// lookup returns the token with the hash, from the cache while fresh,
// else from the store (only tokens found are cached).
func (c *tokenCache) lookup(ctx context.Context, st store.Store, hash []byte, now time.Time) (*store.Token, error) {
	var key [32]byte
	copy(key[:], hash)
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && now.Sub(e.at) < tokenCacheTTL && !now.Before(e.at) {
		return e.t, nil
	}
	t, err := st.TokenByHash(ctx, hash)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= tokenCacheSize {
		c.m = map[[32]byte]tokenEntry{}
	}
	c.m[key] = tokenEntry{t, now}
	c.mu.Unlock()
	return t, nil
}

// forget drops every cached token (a token was revoked).
func (c *tokenCache) forget() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}
