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

	"github.com/gpuscout/gpuscout/internal/form"
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

// Token lifetimes (--expires, the API's "expires"): from an hour to ten
// years; none given, a token never expires.
const (
	MinTokenLifetime = time.Hour
	MaxTokenLifetime = 10 * 365 * 24 * time.Hour
)

// ParseLifetime reads a token's lifetime: a duration such as 90d, 12w,
// 720h or 1y, from MinTokenLifetime to MaxTokenLifetime.
func ParseLifetime(s string) (time.Duration, error) {
	h, err := form.ParseHours(s, false, MaxTokenLifetime.Hours())
	d := time.Duration(h * float64(time.Hour))
	if err != nil || d < MinTokenLifetime {
		return 0, fmt.Errorf("%q: want a duration from 1h to 10y, such as 90d, 12w or 1y", s)
	}
	return d, nil
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
	case pageScope, metricsScope:
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
// token without the scope, 429 for a client address over its failed
// sign-ins (AuthFailures a minute). A dashboard page (pageScope) also takes
// the token as the password of HTTP Basic auth, which a browser asks for
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
	// Credentials are a sign-in: an address over its failures waits, right
	// token or wrong (a guess that hit is not told apart).
	addr := clientAddr(r)
	if ok, wait := s.authFails.check(addr); !ok {
		w.Header().Set("Retry-After", retryAfter(wait))
		writeError(w, http.StatusTooManyRequests, "too_many_failures",
			fmt.Sprintf("too many failed sign-ins from this address (%d a minute); retry after %s s", s.cfg.AuthFailures, retryAfter(wait)), nil)
		return nil, false
	}
	fail := func(extra, msg string) (*store.Token, bool) {
		s.authFails.allow(addr) // takes one of the address's failures
		unauthorized(w, need, extra, msg)
		return nil, false
	}
	secret, ok := bearer(h)
	if need == pageScope && !ok {
		if user, pw, basic := r.BasicAuth(); basic {
			// The token is the password; one typed as the user name, with no
			// password, is taken too.
			if pw == "" && strings.HasPrefix(user, TokenPrefix) {
				pw = user
			}
			secret, ok = strings.TrimSpace(pw), true
		}
	}
	if !ok || secret == "" {
		return fail("", "Authorization: want \"Bearer <token>\"")
	}
	now := s.cfg.Now()
	t, err := s.tokens.lookup(r.Context(), s.cfg.Store, HashSecret(secret), now)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusServiceUnavailable, "store", "token lookup failed", nil)
		return nil, false
	}
	if err != nil || t.Revoked {
		return fail(`, error="invalid_token"`, "unknown or revoked token")
	}
	if t.Expired(now) {
		// Not a failed sign-in: only the holder of a real secret gets here.
		unauthorized(w, need, `, error="invalid_token", error_description="the token expired"`,
			fmt.Sprintf("token %q expired at %s; make a new one (gpuscout token create)", t.Name, t.ExpiresAt.UTC().Format(time.RFC3339)))
		return nil, false
	}
	if !allows(t.Scopes, need) {
		writeError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("token %q (scopes %s) may not do this", t.Name, strings.Join(t.Scopes, ",")), nil)
		return nil, false
	}
	s.touch(r.Context(), t)
	return t, true
}

// bearer reads "Bearer TOKEN" credentials: the scheme in any case (RFC
// 7235 §2.1), one or more spaces, then the token.
func bearer(h string) (string, bool) {
	scheme, rest, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(rest), true
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

// touchTimeout bounds the recording of a token's use: a store that is
// slow to write (a lock held elsewhere) delays the request this long at
// most, once a minute per token.
const touchTimeout = time.Second

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
		ctx, cancel := context.WithTimeout(ctx, touchTimeout)
		defer cancel()
		if err := s.cfg.Store.TouchToken(ctx, t.ID, now.UTC()); err != nil {
			s.cfg.Logger.Warn("token touch", "token", t.Name, "err", err)
		}
	}
}
