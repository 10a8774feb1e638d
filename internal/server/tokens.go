package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// tokenRequest is POST /api/v1/tokens's body. Expires is the token's
// lifetime (ParseLifetime: "90d"); empty: it never expires.
type tokenRequest struct {
	Name    string   `json:"name"`
	Scopes  []string `json:"scopes"`
	Expires string   `json:"expires"`
}

// tokenJSON describes a token (never its secret, except once on creation).
type tokenJSON struct {
	Name      string   `json:"name"`
	Scopes    []string `json:"scopes"`
	CreatedAt string   `json:"created_at"`
	LastUsed  string   `json:"last_used,omitempty"`
	ExpiresAt string   `json:"expires_at,omitempty"` // absent: never
	Revoked   bool     `json:"revoked"`
	Secret    string   `json:"secret,omitempty"`
}

func describe(t *store.Token) tokenJSON {
	j := tokenJSON{Name: t.Name, Scopes: t.Scopes, CreatedAt: t.CreatedAt.UTC().Format(time.RFC3339), Revoked: t.Revoked}
	if !t.LastUsed.IsZero() {
		j.LastUsed = t.LastUsed.UTC().Format(time.RFC3339)
	}
	if !t.ExpiresAt.IsZero() {
		j.ExpiresAt = t.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return j
}

// decodeStrict reads a JSON body into v, refusing unknown fields and
// trailing data; false: it answered 400 or 413.
func decodeStrict(w http.ResponseWriter, r *http.Request, v any) bool {
	b, ok := readBody(w, r)
	if !ok {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			badRequest(w, FieldError{te.Field, "want a " + te.Type.String() + ", got a JSON " + te.Value})
		default:
			badRequest(w, FieldError{"body", err.Error()})
		}
		return false
	}
	if dec.More() {
		badRequest(w, FieldError{"body", "one JSON object expected, found more data after it"})
		return false
	}
	return true
}

func (s *Server) postToken(w http.ResponseWriter, r *http.Request) {
	var req tokenRequest
	if !decodeStrict(w, r, &req) {
		return
	}
	secret, t, err := NewToken(req.Name, req.Scopes, s.cfg.Now())
	if err != nil {
		field := "name"
		if tokenName().MatchString(req.Name) {
			field = "scopes"
		}
		badRequest(w, FieldError{field, err.Error()})
		return
	}
	if req.Expires != "" {
		d, err := ParseLifetime(req.Expires)
		if err != nil {
			badRequest(w, FieldError{"expires", err.Error()})
			return
		}
		t.ExpiresAt = t.CreatedAt.Add(d)
	}
	if err := s.cfg.Store.CreateToken(r.Context(), t); errors.Is(err, store.ErrExists) {
		writeError(w, http.StatusConflict, "exists", "a token named "+req.Name+" exists", []FieldError{{"name", "taken"}})
		return
	} else if err != nil {
		writeError(w, http.StatusServiceUnavailable, "store", "token not stored", nil)
		return
	}
	j := describe(t)
	j.Secret = secret
	writeJSON(w, http.StatusCreated, j)
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) {
	ts, err := s.cfg.Store.ListTokens(r.Context())
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "store", "listing failed", nil)
		return
	}
	out := make([]tokenJSON, 0, len(ts))
	for i := range ts {
		out = append(out, describe(&ts[i]))
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
}

func (s *Server) deleteToken(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	err := s.cfg.Store.RevokeToken(r.Context(), name)
	s.tokens.forget() // whatever happened, no cached token outlives a revocation here
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "not_found", "no token named "+name, nil)
		return
	}
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "store", "revoke failed", nil)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
