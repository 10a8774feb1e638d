package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// Token scopes. A write token may also read; an admin token may do anything.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
	ScopeAdmin = "admin"
)

// Scopes lists the scopes in increasing power.
var Scopes = []string{ScopeRead, ScopeWrite, ScopeAdmin}

// TokenPrefix starts every secret, so that a leaked one is recognisable.
const TokenPrefix = "gps_"

var tokenName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// NewToken makes a token named name with the scopes (nil: write): the
// secret, shown once, and the record to store, which holds only its hash.
func NewToken(name string, scopes []string, now time.Time) (secret string, t *store.Token, err error) {
	if !tokenName().MatchString(name) {
		return "", nil, fmt.Errorf("name %q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	if len(scopes) == 0 {
		scopes = []string{ScopeWrite}
	}
	for _, s := range scopes {
		if !slices.Contains(Scopes, s) {
			return "", nil, fmt.Errorf("scope %q: want one of %s", s, strings.Join(Scopes, ", "))
		}
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, err
	}
	secret = TokenPrefix + hex.EncodeToString(b[:])
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", nil, err
	}
	slices.Sort(scopes)
	return secret, &store.Token{ID: hex.EncodeToString(id[:]), Name: name, Hash: HashSecret(secret),
		Scopes: slices.Compact(scopes), CreatedAt: now.UTC()}, nil
}

// HashSecret is what the store keeps of a secret.
func HashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// allows says whether a token with scopes may do what need asks.
func allows(scopes []string, need access) bool {
	best := -1
	for _, s := range scopes {
		if i := slices.Index(Scopes, s); i > best {
			best = i
		}
	}
	switch need {
	case readScope:
		return best >= 0
	case writeScope:
		return best >= 1
	case adminScope:
		return best >= 2
	case pageScope:
		return best >= 0
	}
	return true
}

type ctxKey struct{}

// caller is the token a request came with (nil: none).
func caller(ctx context.Context) *store.Token {
	t, _ := ctx.Value(ctxKey{}).(*store.Token)
	return t
}

// authenticate finds the request's token. It answers (and returns false)
// with 401 for a missing token a route needs or any bad token, 403 for a
// token without the scope. A dashboard page (pageScope) also takes the
// token as the password of HTTP Basic auth, which a browser asks for
// itself when the 401 says Basic: a page needs a read token unless
// ReadOpen, like the API's reads it shows.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, need access) (*store.Token, bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		if need == open || ((need == readScope || need == pageScope) && s.cfg.ReadOpen) {
			return nil, true
		}
		unauthorized(w, need, "", "this request needs a token: Authorization: Bearer <token> (gpuscout token create)")
		return nil, false
	}
	secret, ok := strings.CutPrefix(h, "Bearer ")
	if need == pageScope && !ok {
		if user, pw, basic := r.BasicAuth(); basic {
			// The token is the password; one typed as the user name, with no
			// password, is taken too.
			if pw == "" && strings.HasPrefix(user, TokenPrefix) {
				pw = user
			}
			secret, ok = pw, true
		}
	}
	if !ok || strings.TrimSpace(secret) == "" {
		unauthorized(w, need, "", "Authorization: want \"Bearer <token>\"")
		return nil, false
	}
	t, err := s.tokens.lookup(r.Context(), s.cfg.Store, HashSecret(strings.TrimSpace(secret)), s.cfg.Now())
	if err != nil || t.Revoked {
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			writeError(w, http.StatusServiceUnavailable, "store", "token lookup failed", nil)
			return nil, false
		}
		unauthorized(w, need, `, error="invalid_token"`, "unknown or revoked token")
		return nil, false
	}
	if !allows(t.Scopes, need) {
		writeError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("token %q (scopes %s) may not do this", t.Name, strings.Join(t.Scopes, ",")), nil)
		return nil, false
	}
	s.touch(r.Context(), t)
	return t, true
}

// unauthorized answers 401. An API route's challenge is Bearer (extra is
// added to it); a dashboard page's is Basic, so that a browser asks for
// the token, and its answer is a line of text saying how to sign in.
func unauthorized(w http.ResponseWriter, need access, extra, msg string) {
	if need != pageScope {
		w.Header().Set("WWW-Authenticate", `Bearer realm="gpuscout"`+extra)
		writeError(w, http.StatusUnauthorized, "unauthorized", msg, nil)
		return
	}
	w.Header().Set("WWW-Authenticate", `Basic realm="gpuscout dashboard", charset="UTF-8"`)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = io.WriteString(w, "401: the dashboard needs a read token ("+msg+"). Sign in with any user name and the token (gpuscout token create --scope read) as the password, or start serve with --read-open.\n")
}

// touch records a token's use, at most once a minute per token.
func (s *Server) touch(ctx context.Context, t *store.Token) {
	now := s.cfg.Now()
	s.touchMu.Lock()
	last := s.touched[t.ID]
	due := now.Sub(last) >= time.Minute
	if due {
		s.touched[t.ID] = now
	}
	s.touchMu.Unlock()
	if due {
		if err := s.cfg.Store.TouchToken(ctx, t.ID, now.UTC()); err != nil {
			s.cfg.Logger.Warn("token touch", "token", t.Name, "err", err)
		}
	}
}
