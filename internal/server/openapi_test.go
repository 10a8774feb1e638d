package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/store"
)

// openAPI is the part of docs/openapi.yaml the checks read.
type openAPI struct {
	Paths      map[string]map[string]operation `yaml:"paths"`
	Components struct {
		Schemas   map[string]any      `yaml:"schemas"`
		Responses map[string]response `yaml:"responses"`
	} `yaml:"components"`
}

type operation struct {
	Parameters []struct {
		Name string `yaml:"name"`
		In   string `yaml:"in"`
	} `yaml:"parameters"`
	RequestBody struct {
		Content map[string]media `yaml:"content"`
	} `yaml:"requestBody"`
	Responses map[string]response `yaml:"responses"`
}

type response struct {
	Ref     string `yaml:"$ref"`
	Headers map[string]struct {
		Required bool `yaml:"required"`
	} `yaml:"headers"`
	Content map[string]media `yaml:"content"`
}

// media is a body: its schema and its example, or its named examples.
type media struct {
	Schema   any `yaml:"schema"`
	Example  any `yaml:"example"`
	Examples map[string]struct {
		Value any `yaml:"value"`
	} `yaml:"examples"`
}

// resolve follows a response's $ref.
func (doc *openAPI) resolve(r response) response {
	if r.Ref != "" {
		return doc.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
	}
	return r
}

func loadOpenAPI(t *testing.T) *openAPI {
	t.Helper()
	b, err := os.ReadFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc openAPI
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	return &doc
}

// TestOpenAPIRoutes: every route the server registers is in the file, and
// every path and method in the file is a route.
func TestOpenAPIRoutes(t *testing.T) {
	doc := loadOpenAPI(t)
	f := newFixture(t, nil)
	var got, want []string
	for _, r := range f.srv.Routes() {
		got = append(got, r.Method+" "+r.Path)
	}
	for path, ops := range doc.Paths {
		for m := range ops {
			want = append(want, strings.ToUpper(m)+" "+path)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("routes:\n got %v\nfile %v", got, want)
	}
}

// TestOpenAPIInputs: the advise body's keys and the offerings query's
// parameters in the file are exactly the inputs the server reads (the
// form's flag names and the API's own), both ways.
func TestOpenAPIInputs(t *testing.T) {
	doc := loadOpenAPI(t)
	schema, _ := doc.Components.Schemas["AdviseRequest"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	var file []string
	for k := range props {
		file = append(file, k)
	}
	got := adviseInputs()
	slices.Sort(file)
	slices.Sort(got)
	if !slices.Equal(got, file) {
		t.Errorf("advise body keys:\n server %v\n file   %v", got, file)
	}
	file = nil
	for _, p := range doc.Paths["/api/v1/offerings"]["get"].Parameters {
		if p.In == "query" {
			file = append(file, p.Name)
		}
	}
	got = offeringsParams()
	slices.Sort(file)
	slices.Sort(got)
	if !slices.Equal(got, file) {
		t.Errorf("offerings parameters:\n server %v\n file   %v", got, file)
	}
}

// TestOpenAPIExamples: each example validates against its schema.
func TestOpenAPIExamples(t *testing.T) {
	doc := loadOpenAPI(t)
	n := 0
	check := func(where string, content map[string]media) {
		for ct, c := range content {
			if ct != "application/json" {
				continue
			}
			examples := map[string]any{"example": c.Example}
			if c.Example == nil {
				delete(examples, "example")
			}
			for name, e := range c.Examples {
				examples["examples."+name] = e.Value
			}
			for name, e := range examples {
				n++
				if err := validate(doc, c.Schema, e, "$"); err != nil {
					t.Errorf("%s %s: %v", where, name, err)
				}
			}
		}
	}
	for path, ops := range doc.Paths {
		for m, op := range ops {
			check(m+" "+path+" request", op.RequestBody.Content)
			for code, r := range op.Responses {
				check(m+" "+path+" "+code, doc.resolve(r).Content)
			}
		}
	}
	if n < 15 {
		t.Fatalf("checked %d examples; want every JSON answer to carry one", n)
	}
}

// TestOpenAPIAnswers: real answers of the server validate against the file.
func TestOpenAPIAnswers(t *testing.T) {
	doc := loadOpenAPI(t)
	f := newFixture(t, nil)
	f.do(t, "POST", "/api/v1/reports", f.write, report(t))
	for _, tc := range []struct {
		method, route, path, token string
		body                       string
		code                       string
	}{
		{"get", "/api/v1/gpus", "/api/v1/gpus", f.read, "", "200"},
		{"get", "/api/v1/offerings", "/api/v1/offerings?gpu=H100&limit=5", f.read, "", "200"},
		{"get", "/api/v1/offerings", "/api/v1/offerings?gpu=nope", f.read, "", "400"},
		{"post", "/api/v1/advise", "/api/v1/advise", f.read, `{"scenario":"inference-batch","work":"100gpu-h@A100","provider":"aws","no-spot":true}`, "200"},
		{"post", "/api/v1/advise", "/api/v1/advise", f.read, `{"scenario":"inference-batch","for":"forever"}`, "400"},
		{"get", "/api/v1/reports", "/api/v1/reports", f.read, "", "200"},
		{"get", "/api/v1/reports", "/api/v1/reports", "", "", "401"},
		{"get", "/api/v1/plans", "/api/v1/plans", f.read, "", "200"},
		{"post", "/api/v1/tokens", "/api/v1/tokens", f.admin, `{"name":"x"}`, "201"},
		{"post", "/api/v1/tokens", "/api/v1/tokens", f.admin, `{"name":"y","scopes":["read"],"expires":"90d"}`, "201"},
		{"get", "/api/v1/tokens", "/api/v1/tokens", f.admin, "", "200"},
		{"get", "/healthz", "/healthz", "", "", "200"},
	} {
		if c, ok := doc.Paths[tc.route][tc.method].RequestBody.Content["application/json"]; ok && tc.body != "" {
			var v any
			if err := json.Unmarshal([]byte(tc.body), &v); err != nil {
				t.Fatal(err)
			}
			if err := validate(doc, c.Schema, v, "$"); err != nil && tc.code[0] == '2' {
				t.Errorf("%s %s: the body the server takes does not validate against the file's: %v", tc.method, tc.path, err)
			}
		}
		w := f.do(t, strings.ToUpper(tc.method), tc.path, tc.token, []byte(tc.body))
		if fmt.Sprint(w.Code) != tc.code {
			t.Errorf("%s: got %d, want %s", tc.path, w.Code, tc.code)
			continue
		}
		r := doc.Paths[tc.route][tc.method].Responses[tc.code]
		if r.Ref != "" {
			r = doc.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
		}
		var v any
		if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		if err := validate(doc, r.Content["application/json"].Schema, v, "$"); err != nil {
			t.Errorf("%s %s answer: %v", tc.method, tc.path, err)
		}
	}
}

// validate checks v against a schema: types, nullable, required, enum,
// properties, additionalProperties, items and $ref; enough for our schemas.
func validate(doc *openAPI, schema, v any, at string) error {
	s, _ := schema.(map[string]any)
	if s == nil {
		return fmt.Errorf("%s: no schema", at)
	}
	if ref, ok := s["$ref"].(string); ok {
		return validate(doc, doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")], v, at)
	}
	if v == nil {
		if s["nullable"] == true || s["type"] == nil {
			return nil
		}
		return fmt.Errorf("%s: null, not nullable", at)
	}
	typeOK := map[string]func() bool{
		"object":  func() bool { _, ok := v.(map[string]any); return ok },
		"array":   func() bool { _, ok := v.([]any); return ok },
		"string":  func() bool { _, ok := v.(string); return ok },
		"boolean": func() bool { _, ok := v.(bool); return ok },
		"number": func() bool {
			switch v.(type) {
			case float64, int:
				return true
			}
			return false
		},
		"integer": func() bool {
			switch x := v.(type) {
			case float64:
				return x == float64(int64(x))
			case int:
				return true
			}
			return false
		},
	}
	if ty, ok := s["type"].(string); ok && !typeOK[ty]() {
		return fmt.Errorf("%s: %v is not a %s", at, v, ty)
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, v) {
		return fmt.Errorf("%s: %v not in %v", at, v, enum)
	}
	switch x := v.(type) {
	case map[string]any:
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := x[r.(string)]; !ok {
				return fmt.Errorf("%s: required field %s missing", at, r)
			}
		}
		props, _ := s["properties"].(map[string]any)
		for k, val := range x {
			if ps, ok := props[k]; ok {
				if err := validate(doc, ps, val, at+"."+k); err != nil {
					return err
				}
			} else if ap, ok := s["additionalProperties"]; ok {
				if ap == false {
					return fmt.Errorf("%s: unknown field %s", at, k)
				}
				if err := validate(doc, ap, val, at+"."+k); err != nil {
					return err
				}
			}
		}
	case []any:
		if items, ok := s["items"]; ok {
			for i, e := range x {
				if err := validate(doc, items, e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// TestValidateRefuses: the checker does find a missing field, a wrong type
// and an unknown field where the schema forbids one.
func TestValidateRefuses(t *testing.T) {
	doc := loadOpenAPI(t)
	for _, tc := range []struct {
		schema string
		v      string
	}{
		{"Error", `{"error":{"code":"x"}}`},
		{"Uploaded", `{"id":"a","kind":"bench","created":"yes"}`},
		{"TokenRequest", `{"name":"a","colour":"red"}`},
		{"OfferingList", `{"offerings":[{"provider":"aws"}]}`},
	} {
		var v any
		json.Unmarshal([]byte(tc.v), &v)
		if err := validate(doc, map[string]any{"$ref": "#/components/schemas/" + tc.schema}, v, "$"); err == nil {
			t.Errorf("%s %s: got valid, want an error", tc.schema, tc.v)
		}
	}
}

// apiCall is a request of one API route, as the file names the route.
type apiCall struct{ method, route, path, body string }

// apiCalls is a request of each API route but /metrics; id is a stored
// report's.
func apiCalls(id string) []apiCall {
	return []apiCall{
		{"get", "/api/v1/gpus", "/api/v1/gpus", ""},
		{"get", "/api/v1/offerings", "/api/v1/offerings?gpu=H100&limit=1", ""},
		{"post", "/api/v1/advise", "/api/v1/advise", `{"scenario":"inference-batch","work":"100gpu-h@A100","bench":["` + id + `"]}`},
		{"post", "/api/v1/cost", "/api/v1/cost", `{"gpu":"A100:8","duration":"7d"}`},
		{"post", "/api/v1/reports", "/api/v1/reports", ""}, // the body is set by the caller
		{"get", "/api/v1/reports", "/api/v1/reports", ""},
		{"get", "/api/v1/reports/compare", "/api/v1/reports/compare?ids=" + id + "," + strings.Repeat("0", 64), ""},
		{"get", "/api/v1/reports/{id}", "/api/v1/reports/" + id, ""},
		{"get", "/api/v1/plans", "/api/v1/plans", ""},
		{"post", "/api/v1/tokens", "/api/v1/tokens", `{"name":"made-here"}`},
		{"get", "/api/v1/tokens", "/api/v1/tokens", ""},
		{"delete", "/api/v1/tokens/{name}", "/api/v1/tokens/nobody", ""},
		{"get", "/healthz", "/healthz", ""},
	}
}

// conforms checks an answer against the file: its status is documented
// for the route, it has every header the file says it has, and its JSON
// body validates against the documented schema.
func conforms(t *testing.T, doc *openAPI, c apiCall, w *httptest.ResponseRecorder) {
	t.Helper()
	r, ok := doc.Paths[c.route][c.method].Responses[strconv.Itoa(w.Code)]
	if !ok {
		t.Errorf("%s %s answers %d %s: the file does not document %d for it", c.method, c.route, w.Code, w.Body, w.Code)
		return
	}
	r = doc.resolve(r)
	for name, h := range r.Headers {
		if h.Required && w.Header().Get(name) == "" {
			t.Errorf("%s %s: its %d answer has no %s header; the file says it has", c.method, c.route, w.Code, name)
		}
	}
	if m, ok := r.Content["application/json"]; ok {
		var v any
		if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
			t.Errorf("%s %s: its %d answer is not JSON: %v", c.method, c.route, w.Code, err)
			return
		}
		if err := validate(doc, m.Schema, v, "$"); err != nil {
			t.Errorf("%s %s: its %d answer: %v", c.method, c.route, w.Code, err)
		}
	}
}

// failingStore fails every call, when fail is set, as a database locked
// by another writer beyond the busy timeout does.
type failingStore struct {
	store.Store
	fail atomic.Bool
}

func (s *failingStore) err() error {
	if s.fail.Load() {
		return store.Mark(errors.New("database is locked (5)"), store.ErrBusy)
	}
	return nil
}

func (s *failingStore) PutDocument(ctx context.Context, d *store.Document) (bool, error) {
	if err := s.err(); err != nil {
		return false, err
	}
	return s.Store.PutDocument(ctx, d)
}

func (s *failingStore) GetDocument(ctx context.Context, id string) (*store.Document, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.GetDocument(ctx, id)
}

func (s *failingStore) GetDocuments(ctx context.Context, ids []string) ([]store.Document, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.GetDocuments(ctx, ids)
}

func (s *failingStore) ListDocuments(ctx context.Context, f store.Filter, withBody bool) ([]store.Document, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.ListDocuments(ctx, f, withBody)
}

func (s *failingStore) CreateToken(ctx context.Context, tok *store.Token) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.CreateToken(ctx, tok)
}

func (s *failingStore) TokenByHash(ctx context.Context, hash []byte) (*store.Token, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.TokenByHash(ctx, hash)
}

func (s *failingStore) ListTokens(ctx context.Context) ([]store.Token, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.ListTokens(ctx)
}

func (s *failingStore) RevokeToken(ctx context.Context, name string) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.RevokeToken(ctx, name)
}

func (s *failingStore) Ping(ctx context.Context) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.Ping(ctx)
}

func (s *failingStore) ProbeWrite(ctx context.Context) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.ProbeWrite(ctx)
}

// TestOpenAPIErrorAnswers: the answers every API route gives to an
// expired token (401), a token over its rate and an address over its
// failed sign-ins (429, Retry-After) and a store that cannot do it now
// (503, Retry-After) are in the file, with their headers, and validate.
func TestOpenAPIErrorAnswers(t *testing.T) {
	doc := loadOpenAPI(t)
	// The server's clock stands still but for the seconds the test adds: a
	// limiter whose clock ran would refill while a slow machine (the race
	// detector, other work) answers the calls meant to empty it.
	base := time.Now()
	var clock atomic.Int64 // seconds added to base
	now := func() time.Time { return base.Add(time.Duration(clock.Load()) * time.Second) }
	setup := func(t *testing.T, edit func(*Config)) (*fixture, string) {
		f := newFixture(t, func(c *Config) {
			c.Now = now
			if edit != nil {
				edit(c)
			}
		})
		w := f.do(t, "POST", "/api/v1/reports", f.write, report(t))
		var a struct{ ID string }
		decode(t, w, &a)
		return f, a.ID
	}
	send := func(f *fixture, c apiCall, token string, n int) *httptest.ResponseRecorder {
		body := []byte(c.body)
		if c.route == "/api/v1/reports" && c.method == "post" {
			body = reportWith(t, fmt.Sprintf("node-%d", n))
		}
		return f.do(t, strings.ToUpper(c.method), c.path, token, body)
	}

	t.Run("expired token", func(t *testing.T) {
		clock.Store(0)
		f, id := setup(t, nil)
		req := `{"name":"short","scopes":["admin"],"expires":"1h"}`
		w := f.do(t, "POST", "/api/v1/tokens", f.admin, []byte(req))
		conforms(t, doc, apiCall{"post", "/api/v1/tokens", "/api/v1/tokens", req}, w)
		var tok struct {
			Secret    string `json:"secret"`
			ExpiresAt string `json:"expires_at"`
		}
		decode(t, w, &tok)
		if w.Code != 201 || tok.ExpiresAt == "" {
			t.Fatalf("POST /api/v1/tokens with expires: %d %s, want 201 with expires_at", w.Code, w.Body)
		}
		clock.Store(3600 + 1)
		for i, c := range apiCalls(id) {
			w := send(f, c, tok.Secret, i)
			conforms(t, doc, c, w)
			if w.Code != 401 || !strings.Contains(w.Body.String(), "expired") || !strings.Contains(w.Header().Get("WWW-Authenticate"), `error_description="the token expired"`) {
				t.Errorf("%s %s with an expired token: %d %s (WWW-Authenticate %q), want 401 saying it expired", c.method, c.path, w.Code, w.Body, w.Header().Get("WWW-Authenticate"))
			}
		}
	})

	t.Run("rate", func(t *testing.T) {
		clock.Store(0)
		f, id := setup(t, func(c *Config) { c.RatePerToken, c.ExpensiveRate = 1, 1 })
		for i, c := range apiCalls(id) {
			if c.route == "/healthz" { // needs no token: no rate
				continue
			}
			var w *httptest.ResponseRecorder
			for n := 0; n < 30; n++ {
				if w = send(f, c, f.admin, 100*i+n); w.Code == 429 {
					break
				}
			}
			conforms(t, doc, c, w)
			if w.Code != 429 || !strings.Contains(w.Body.String(), `"rate_limited"`) {
				t.Errorf("%s %s over the rate: %d %s, want 429 rate_limited", c.method, c.path, w.Code, w.Body)
			}
		}
	})

	t.Run("failed sign-ins", func(t *testing.T) {
		clock.Store(0)
		f, id := setup(t, func(c *Config) { c.AuthFailures = 1 })
		for range 3 {
			f.do(t, "GET", "/api/v1/reports", "gps_wrong", nil)
		}
		for i, c := range apiCalls(id) {
			w := send(f, c, f.admin, i)
			conforms(t, doc, c, w)
			if w.Code != 429 || !strings.Contains(w.Body.String(), `"too_many_failures"`) {
				t.Errorf("%s %s from an address over its failed sign-ins: %d %s, want 429 too_many_failures", c.method, c.path, w.Code, w.Body)
			}
		}
	})

	t.Run("store busy", func(t *testing.T) {
		clock.Store(0)
		fs := &failingStore{}
		f, id := setup(t, func(c *Config) { fs.Store = c.Store; c.Store = fs })
		f.do(t, "GET", "/api/v1/tokens", f.admin, nil) // the admin token's lookup cached
		fs.fail.Store(true)
		// With the token's lookup cached, the routes that read or write the
		// store answer 503; the others answer as usual.
		needStore := map[string]bool{"/api/v1/reports": true, "/api/v1/reports/compare": true, "/api/v1/reports/{id}": true,
			"/api/v1/plans": true, "/api/v1/tokens": true, "/api/v1/tokens/{name}": true, "/healthz": true, "/api/v1/advise": true}
		for i, c := range apiCalls(id) {
			w := send(f, c, f.admin, i)
			conforms(t, doc, c, w)
			if needStore[c.route] && (w.Code != 503 || w.Header().Get("Retry-After") == "") {
				t.Errorf("%s %s with the store locked: %d %s (Retry-After %q), want 503 with Retry-After", c.method, c.path, w.Code, w.Body, w.Header().Get("Retry-After"))
			}
		}
		// A token not looked up yet: every route that takes one answers 503.
		clock.Store(10) // past the token cache's TTL
		for i, c := range apiCalls(id) {
			if c.route == "/healthz" {
				continue
			}
			w := send(f, c, f.read, i)
			conforms(t, doc, c, w)
			if w.Code != 503 {
				t.Errorf("%s %s, its token's lookup failing: %d %s, want 503", c.method, c.path, w.Code, w.Body)
			}
		}
	})
}
