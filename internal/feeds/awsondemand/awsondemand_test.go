package awsondemand

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func TestParseShared(t *testing.T) {
	path := filepath.Join(shareddata.Dir(t), "aws-ondemand", "aws-gpu-accelerated-ondemand.csv")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := Parse(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	src, _ := csv.NewReader(strings.NewReader(string(raw))).ReadAll()
	if len(recs) != len(src)-1 {
		t.Fatalf("%d records, want %d", len(recs), len(src)-1)
	}
	for i, r := range recs {
		if !r.Price.Equal(decimal.RequireFromString(src[i+1][2])) || r.InstanceType != src[i+1][1] {
			t.Errorf("line %d: %s %s, source %s %s", i+2, r.InstanceType, r.Price, src[i+1][1], src[i+1][2])
		}
	}
	// Spot checks against the SOURCE.md notes: p3.16xlarge is the $24.48 the article calls p4d.
	want := map[string]string{"us-east-1/p3.16xlarge": "24.48", "us-east-1/p4d.24xlarge": "21.957642", "cn-north-1/p3.16xlarge": "288.627"}
	for _, r := range recs {
		if w, ok := want[r.Region+"/"+r.InstanceType]; ok {
			if !r.Price.Equal(decimal.RequireFromString(w)) {
				t.Errorf("%s/%s = %s, want %s", r.Region, r.InstanceType, r.Price, w)
			}
			delete(want, r.Region+"/"+r.InstanceType)
		}
	}
	if len(want) > 0 {
		t.Errorf("rows not found: %v", want)
	}
}

func TestParseErrors(t *testing.T) {
	head := "region,instance_type,ondemand_price_per_hour,currency,generated_at\n"
	for name, in := range map[string]string{
		"bad header": "a,b\n",
		"bad price":  head + "us-east-1,x,abc,USD,2026-07-20T13:44:30Z\n",
		"zero price": head + "us-east-1,x,0,USD,2026-07-20T13:44:30Z\n",
		"bad date":   head + "us-east-1,x,1,USD,yesterday\n",
		"currency":   head + "us-east-1,x,1,DOLLARS,2026-07-20T13:44:30Z\n",
	} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("region,instance_type,ondemand_price_per_hour,currency,generated_at\nus-east-1,p4d.24xlarge,21.957642,USD,2026-07-20T13:44:30Z\n")
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, r := range recs {
			if !r.Price.IsPositive() {
				t.Fatal("non-positive price accepted")
			}
		}
	})
}
