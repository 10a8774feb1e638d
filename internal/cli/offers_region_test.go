package cli

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"
)

func TestResolveRegionFlag(t *testing.T) {
	known := map[string]bool{"CN, AS": true, "Sichuan, CN, AS": true, "us-east-1": true, "us-west-2": true, "cn-hangzhou": true}
	resolve := func(s string) []string {
		s = strings.TrimSpace(s)
		if s == "华东1" {
			return []string{"cn-hangzhou"}
		}
		if known[s] {
			return []string{s}
		}
		return nil
	}
	for _, tc := range []struct {
		in      string
		want    []string
		wantErr string
	}{
		{"CN, AS", []string{"CN, AS"}, ""},
		{"CN,AS", []string{"CN, AS"}, ""},
		{"Sichuan, CN, AS", []string{"Sichuan, CN, AS"}, ""},
		{"us-east-1,us-west-2", []string{"us-east-1", "us-west-2"}, ""},
		{"us-east-1, CN, AS", []string{"us-east-1", "CN, AS"}, ""},
		{"Sichuan, CN, AS,us-east-1", []string{"Sichuan, CN, AS", "us-east-1"}, ""},
		{"华东1,us-east-1", []string{"cn-hangzhou", "us-east-1"}, ""},
		{"us-east-1,,", []string{"us-east-1"}, ""},
		{"mars-1", nil, `--region "mars-1" is not a known region`},
		{"us-east-1,mars-1", nil, `--region "us-east-1,mars-1": "mars-1" is not a known region`},
		{" , ", nil, `--region " , ": empty`},
	} {
		got, err := resolveRegionFlag(tc.in, resolve)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("resolveRegionFlag(%q) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("resolveRegionFlag(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// Regions that contain commas are selectable with repeated --region flags,
// and a plain comma list still works.
func TestOffersRegionFlags(t *testing.T) {
	regionsOf := func(args ...string) map[string]bool {
		t.Helper()
		out, errOut, code := run(t, append([]string{"offers", "--all-regions", "-o", "csv"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := slices.IndexFunc(recs[0], func(h string) bool { return strings.EqualFold(h, "region") })
		if col < 0 {
			t.Fatalf("no region column in %q", recs[0])
		}
		got := map[string]bool{}
		for _, r := range recs[1:] {
			region, _, _ := strings.Cut(r[col], "/") // region/zone
			got[region] = true
		}
		return got
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--provider", "vast", "--region", "Sichuan, CN, AS", "--region", "British Columbia, CA, NA"}, []string{"British Columbia, CA, NA", "Sichuan, CN, AS"}},
		{[]string{"--provider", "vast", "--region", "Sichuan, CN, AS,Japan, JP, AS"}, []string{"Japan, JP, AS", "Sichuan, CN, AS"}},
		{[]string{"--provider", "aws", "--gpu", "A100:8", "--region", "us-east-1,cn-north-1"}, []string{"us-east-1"}},
	} {
		got := regionsOf(tc.args...)
		if !slices.Equal(keys(got), tc.want) {
			t.Errorf("%v: regions %q, want %q", tc.args, keys(got), tc.want)
		}
	}
	_, errOut, code := run(t, "offers", "--region", "us-east-1,mars-1")
	if code != 2 || !strings.Contains(errOut, `"mars-1" is not a known region`) {
		t.Errorf("unknown part: exit %d, stderr %q; want 2 naming mars-1", code, errOut)
	}
}
