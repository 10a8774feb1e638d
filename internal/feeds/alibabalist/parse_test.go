package alibabalist

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// excerpt is a small real excerpt of the table: rows of ap-southeast-6,
// cn-hangzhou and us-east-1 with their values as in the file at 5d2e0774
// (a zero price, a non-GPU type, GPU types).
const excerpt = `{
    "ap-southeast-6": {
        "ecs.c7.16xlarge": 0
    },
    "cn-hangzhou": {
        "ecs.c6.large": 0.39,
        "ecs.gn7e-c16g1.4xlarge": 34.742,
        "ecs.gn7i-c8g1.2xlarge": 9.5326,
        "ecs.sgn7i-vws-m2.xlarge": 1.893534
    },
    "us-east-1": {
        "ecs.ebmgn7ix.32xlarge": 0,
        "ecs.gn6i-c4g1.xlarge": 7.79
    }
}
`

func TestParseExcerpt(t *testing.T) {
	recs, err := Parse(strings.NewReader(excerpt))
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{
		{3, "ap-southeast-6", "ecs.c7.16xlarge", decimal.Zero},
		{6, "cn-hangzhou", "ecs.c6.large", decimal.RequireFromString("0.39")},
		{7, "cn-hangzhou", "ecs.gn7e-c16g1.4xlarge", decimal.RequireFromString("34.742")},
		{8, "cn-hangzhou", "ecs.gn7i-c8g1.2xlarge", decimal.RequireFromString("9.5326")},
		{9, "cn-hangzhou", "ecs.sgn7i-vws-m2.xlarge", decimal.RequireFromString("1.893534")},
		{12, "us-east-1", "ecs.ebmgn7ix.32xlarge", decimal.Zero},
		{13, "us-east-1", "ecs.gn6i-c4g1.xlarge", decimal.RequireFromString("7.79")},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(recs), len(want), recs)
	}
	for i, w := range want {
		g := recs[i]
		if g.Line != w.Line || g.Region != w.Region || g.InstanceType != w.InstanceType || !g.Price.Equal(w.Price) {
			t.Errorf("record %d = %d %s %s %s, want %d %s %s %s", i, g.Line, g.Region, g.InstanceType, g.Price, w.Line, w.Region, w.InstanceType, w.Price)
		}
	}
}

func TestParseMinified(t *testing.T) {
	recs, err := Parse(strings.NewReader(`{"cn-beijing":{"ecs.gn6v-c8g1.2xlarge":26.46,"ecs.gn5-c4g1.xlarge":1e1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Line != 1 || !recs[1].Price.Equal(decimal.NewFromInt(10)) {
		t.Errorf("got %+v", recs)
	}
}

// A malformed or truncated file is refused with an error naming the line,
// the key and the value.
func TestParseErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		in   string
		want []string
	}{
		"empty":          {"", []string{"line 1", "ends", "truncated"}},
		"not an object":  {"[1]", []string{"line 1", "'['", "want '{'"}},
		"truncated":      {"{\n \"cn-hangzhou\": {\n  \"ecs.gn7i-c8g1.2xlarge\": 9.53", []string{"line 3", "truncated"}},
		"truncated key":  {"{\n \"cn-hangzhou\": {\n  \"ecs.gn7i", []string{"line 3"}},
		"string price":   {"{\"cn-hangzhou\": {\n\"ecs.x\": \"9.5\"}}", []string{"line 2", `"cn-hangzhou"`, `"ecs.x"`, `"9.5"`, "not a number"}},
		"null price":     {"{\"cn-hangzhou\": {\n\"ecs.x\": null}}", []string{"line 2", "null", "not a number"}},
		"object price":   {"{\"cn-hangzhou\": {\"ecs.x\": {}}}", []string{`"ecs.x"`, "'{'", "not a number"}},
		"negative price": {"{\"r\": {\"ecs.x\": -1}}", []string{`"ecs.x"`, `"-1"`, "negative"}},
		"huge exponent":  {"{\"r\": {\"ecs.x\": 1e400}}", []string{`"ecs.x"`, `"1e400"`}},
		"region value":   {"{\"r\": 5}", []string{`region "r"`, "5", "want '{'"}},
		"dup region":     {"{\"r\": {},\n\"r\": {}}", []string{"line 2", `region "r"`, "twice", "line 1"}},
		"dup type":       {"{\"r\": {\"ecs.x\": 1,\n\"ecs.x\": 2}}", []string{"line 2", `"ecs.x"`, "twice"}},
		"empty type":     {"{\"r\": {\"\": 1}}", []string{"instance type", `""`, "empty"}},
		"spaced region":  {"{\" r\": {}}", []string{"region", `" r"`}},
		"trailing data":  {"{\"r\": {}}\n{}", []string{"line 2", "after the table"}},
		"trailing comma": {"{\"r\": {\"ecs.x\": 1,}}", []string{"line 1", "malformed"}},
		"bare word":      {"{\"r\": {\"ecs.x\": abc}}", []string{"malformed"}},
	} {
		_, err := Parse(strings.NewReader(tc.in))
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", name, err, w)
			}
		}
	}
}

func TestFamily(t *testing.T) {
	for typ, want := range map[string]struct {
		family string
		gpu    bool
	}{
		"ecs.gn7i-c8g1.2xlarge":     {"gn7i", true},
		"ecs.gn7i-2x.8xlarge":       {"gn7i", true},
		"ecs.sgn7i-vws-m2s.xlarge":  {"sgn7i", true},
		"ecs.vgn6i-m16-vws.5xlarge": {"vgn6i", true},
		"ecs.ebmgn7ix.32xlarge":     {"ebmgn7ix", true},
		"ecs.gn5-c4g1.xlarge":       {"gn5", true},
		"ecs.g7.large":              {"g7", false},
		"ecs.ebmg7.32xlarge":        {"ebmg7", false},
		"ecs.sccg7.32xlarge":        {"sccg7", false},
		"ecs.video-trans.26xhevc":   {"video", false},
		"ecs.t6-c1m1.large":         {"t6", false},
	} {
		if f := Family(typ); f != want.family || IsGPUType(typ) != want.gpu {
			t.Errorf("%s: family %s, GPU %v; want %s, %v", typ, f, IsGPUType(typ), want.family, want.gpu)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(excerpt)
	f.Add(`{"cn-beijing":{"ecs.gn6v-c8g1.2xlarge":26.46}}`)
	f.Add(`{"r":{"ecs.x":1e-5}}`)
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := Parse(strings.NewReader(s))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "alibabalist: ") {
				t.Fatalf("error without the feed's name: %v", err)
			}
			return
		}
		lines := strings.Count(s, "\n") + 1
		for _, r := range recs {
			if r.Price.IsNegative() || r.Region == "" || r.InstanceType == "" || r.Line < 1 || r.Line > lines {
				t.Fatalf("invalid record accepted: %+v", r)
			}
		}
	})
}
