package form

import (
	"net/url"
	"strings"
	"testing"
)

// SetJSON: each JSON type reaches the input it fits, and every problem
// names its key, in the flag's words.
func TestSetJSON(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		own        []string
		check      func(f *Advise) string // "" when right
		bad        map[string]string      // key → a piece of its problem
	}{
		{"strings, numbers, booleans, lists", `{"scenario":"cv-training","gpu":"A100:4","for":"7d","max-nodes":8,"tokens":2e9,"no-spot":true,"provider":["aws","gcp"],"egress":["internet=500","cross-zone=5"],"credits":"100USD@aws","context":"32k"}`, nil,
			func(f *Advise) string {
				if f.scenario != "cv-training" || f.sel.GPU != "A100:4" || f.duration != 168 || f.maxNodes != 8 || f.tokens != 2e9 || !f.noSpot ||
					strings.Join(f.sel.Providers, ",") != "aws,gcp" || f.egress["internet"] != 500 || f.egress["cross-zone"] != 5 || len(f.credits) != 1 || f.context != 32768 {
					return "not every value landed"
				}
				if !f.Changed("for") || f.Changed("deadline") {
					return "Changed is wrong"
				}
				return ""
			}, nil},
		{"a switch may be false, and text", `{"no-spot":false,"allow-slow-network":"true"}`, nil,
			func(f *Advise) string {
				if f.noSpot || !f.allowSlowNetwork || !f.Changed("no-spot") {
					return "want no-spot false (given), allow-slow-network true"
				}
				return ""
			}, nil},
		{"egress as an object", `{"egress":{"internet":500,"cross-zone":5}}`, nil,
			func(f *Advise) string {
				if f.egress["internet"] != 500 || f.egress["cross-zone"] != 5 {
					return "want internet 500, cross-zone 5"
				}
				return ""
			}, nil},
		{"the caller's keys are returned", `{"currency":"CNY","scenario":"cv-training"}`, []string{"currency"}, nil, nil},
		{"problems, each by its key", `{"for":"forever","colour":"red","no-spot":1,"gpu":["A100"],"max-nodes":0,"model":null,"discount-rate":8}`, nil, nil, map[string]string{
			"for":           `invalid argument "forever" for "--for" flag`,
			"colour":        "unknown input; allowed: accelerators, all-regions",
			"no-spot":       "got 1; want true or false",
			"gpu":           "want a string in the flag's syntax",
			"max-nodes":     `invalid argument "0" for "--max-nodes" flag: want 1 to 10000`,
			"model":         "null: give a value, or leave model out",
			"discount-rate": "a bare number is a fraction",
		}},
		{"bounds", `{"gpu":"` + strings.Repeat("A", MaxTextLen+1) + `","region":[` + strings.Repeat(`"us-east-1",`, MaxListLen) + `"us-east-1"]}`, nil, nil, map[string]string{
			"gpu": "--gpu: 1001 characters; at most 1000", "region": "101 items; at most 100"}},
		{"not an object", `["scenario"]`, nil, nil, map[string]string{"body": "want a JSON object"}},
		{"two objects", `{} {}`, nil, nil, map[string]string{"body": "want a JSON object"}},
		// encoding/json took the last of a repeated key, at the top or inside a value.
		{"a key given twice", `{"gpu":"A100:4","gpu":"H100:8"}`, nil, nil, map[string]string{"body": "field gpu at byte 16: given twice"}},
		{"a nested key given twice", `{"egress":{"internet":5,"internet":9}}`, nil, nil, map[string]string{"body": "field egress.internet at byte 24: given twice"}},
		{"a number beyond bounds", `{"tokens":1e300}`, nil, nil, map[string]string{"body": "outside the allowed range"}},
		{"a list item that is not text", `{"provider":[{"name":"aws"}]}`, nil, nil, map[string]string{"provider": "item 1: want a string"}},
		{"an object elsewhere, a bad egress object", `{"credits":{"aws":100},"egress":{"moon":5}}`, nil, nil, map[string]string{
			"credits": "want a string, or a list of strings", "egress": `invalid argument "moon=5" for "--egress" flag`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewAdvise()
			own, errs := f.SetJSON([]byte(tc.body), tc.own...)
			got := map[string]string{}
			for _, e := range errs {
				got[e.Name] = e.Error()
			}
			if len(got) != len(tc.bad) {
				t.Errorf("problems %v, want on %v", got, tc.bad)
			}
			for k, want := range tc.bad {
				if !strings.Contains(got[k], want) {
					t.Errorf("%s: got %q, want %q in it", k, got[k], want)
				}
			}
			for _, k := range tc.own {
				if _, ok := own[k]; !ok {
					t.Errorf("own key %s not returned: %v", k, own)
				}
			}
			if tc.check != nil {
				if msg := tc.check(f); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// SetQuery: offers' flags as query parameters; a switch alone is on.
func TestSetQuery(t *testing.T) {
	f := NewOffers()
	v, _ := url.ParseQuery("gpu=A100:8&spot&provider=aws,gcp&provider=lambda&region=us-east-1&currency=CNY&limit=5")
	if errs := f.SetQuery(v, "currency"); errs != nil {
		t.Fatalf("errors %v", errs[0])
	}
	if !f.spot || f.limit != 5 || f.sel.GPU != "A100:8" || strings.Join(f.sel.Providers, ",") != "aws,gcp,lambda" || len(f.sel.Regions) != 1 {
		t.Errorf("got spot %v limit %d gpu %s providers %v regions %v", f.spot, f.limit, f.sel.GPU, f.sel.Providers, f.sel.Regions)
	}
	v, _ = url.ParseQuery("limit=-1&colour=red&spot=maybe")
	errs := NewOffers().SetQuery(v, "currency")
	got := map[string]string{}
	for _, e := range errs {
		got[e.Name] = e.Error()
	}
	for k, want := range map[string]string{"limit": `invalid argument "-1" for "--limit" flag: want 0 to 1048576`, "colour": "allowed: all-regions, china, currency", "spot": "want true or false"} {
		if !strings.Contains(got[k], want) {
			t.Errorf("%s: got %q, want %q in it", k, got[k], want)
		}
	}
}
