package server

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
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
	Responses map[string]response `yaml:"responses"`
}

type response struct {
	Ref     string `yaml:"$ref"`
	Content map[string]struct {
		Schema  any `yaml:"schema"`
		Example any `yaml:"example"`
	} `yaml:"content"`
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
	check := func(where string, r response) {
		if r.Ref != "" {
			r = doc.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
		}
		for ct, c := range r.Content {
			if c.Example == nil || ct != "application/json" {
				continue
			}
			n++
			if err := validate(doc, c.Schema, c.Example, "$"); err != nil {
				t.Errorf("%s example: %v", where, err)
			}
		}
	}
	for path, ops := range doc.Paths {
		for m, op := range ops {
			for code, r := range op.Responses {
				check(m+" "+path+" "+code, r)
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
		{"get", "/api/v1/tokens", "/api/v1/tokens", f.admin, "", "200"},
		{"get", "/healthz", "/healthz", "", "", "200"},
	} {
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
