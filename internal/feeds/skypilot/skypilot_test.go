package skypilot

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func TestParsePyLiteral(t *testing.T) {
	v, err := parsePyLiteral(`{'Gpus': [{'Name': 'A100', 'Count': 8.0, 'Ok': True, 'X': None, "q": 'it\'s'}], 'TotalGpuMemoryInMiB': -1.5e3}`)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if got := m["TotalGpuMemoryInMiB"]; got != -1500.0 {
		t.Errorf("total = %v, want -1500", got)
	}
	g := m["Gpus"].([]any)[0].(map[string]any)
	if g["Name"] != "A100" || g["Count"] != 8.0 || g["Ok"] != true || g["X"] != nil || g["q"] != "it's" {
		t.Errorf("gpu = %#v", g)
	}
	for _, bad := range []string{"", "{", "{'a' 1}", "[1,", "{1: 2}", "'x", "{'a': 1} x", "nope", strings.Repeat("[", 100)} {
		if _, err := parsePyLiteral(bad); err == nil {
			t.Errorf("parsePyLiteral(%q) accepted", bad)
		}
	}
}

func TestParseFixtures(t *testing.T) {
	f, _ := os.Open("testdata/lambda-like.csv")
	defer f.Close()
	recs, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("got %d records, want 2", len(recs))
	}
	r := recs[1]
	if r.InstanceType != "gpu_8x_a100" || r.AcceleratorCount != 8 || r.VCPUs != 124 || r.Region != "us-east-1" {
		t.Errorf("record = %+v", r)
	}
	if !r.Price.Known || !r.Price.Amount.Equal(decimal.RequireFromString("15.92")) || r.SpotPrice.Known {
		t.Errorf("prices = %+v %+v, want 15.92 and none", r.Price, r.SpotPrice)
	}
	if r.PerGPUMemoryMiB(false) != 40960 {
		t.Errorf("per-GPU memory = %v, want 40960", r.PerGPUMemoryMiB(false))
	}

	f2, _ := os.Open("testdata/vast-like.csv")
	defer f2.Close()
	recs, err = Parse(f2)
	if err != nil {
		t.Fatal(err)
	}
	v := recs[0]
	// Vast writes the instance total into SizeInMiB; 0.00 spot means none.
	if v.PerGPUMemoryMiB(true) != 81920 || v.SpotPrice.Known || v.Region != "Montana, US, NA" {
		t.Errorf("vast record: mem %v spot %+v region %q", v.PerGPUMemoryMiB(true), v.SpotPrice, v.Region)
	}
}

func TestParseErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":          "",
		"missing column": "InstanceType,Price\nx,1\n",
		"bad price":      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\nx,,,1,1,abc,r\n",
		"negative":       "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\nx,,,1,1,-2,r\n",
		"bad gpuinfo":    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo\nx,A,1,1,1,2,r,{'a'\n",
		"short row":      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\nx,,\n",
	} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestSharedFiles parses every SkyPilot file in shared/data and checks each
// record against an independent read of the same CSV: row counts equal, and
// every price equal to the digit.
func TestSharedFiles(t *testing.T) {
	dir := shareddata.Dir(t)
	for _, name := range []string{"lambda/vms.csv", "nebius/vms.csv", "vast/vms.csv", "seeweb/vms.csv", "fluidstack/vms.csv", "aws/vms.p4d-p5-excerpt.csv"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, "skypilot-catalog", name)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			all, err := csv.NewReader(strings.NewReader(string(raw))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			recs, err := Parse(strings.NewReader(string(raw)))
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(all)-1 {
				t.Fatalf("%d records, want %d", len(recs), len(all)-1)
			}
			col := map[string]int{}
			for i, h := range all[0] {
				col[h] = i
			}
			for i, r := range recs {
				src := all[i+1]
				if r.InstanceType != src[col["InstanceType"]] || r.Region != src[col["Region"]] {
					t.Fatalf("row %d: %s/%s, source %s/%s", i+2, r.InstanceType, r.Region, src[col["InstanceType"]], src[col["Region"]])
				}
				checkPrice(t, i+2, "Price", r.Price, src[col["Price"]])
				if c, ok := col["SpotPrice"]; ok {
					checkPrice(t, i+2, "SpotPrice", r.SpotPrice, src[c])
				}
			}
		})
	}
}

func checkPrice(t *testing.T, line int, name string, got OptPrice, src string) {
	t.Helper()
	if src == "" || decimal.RequireFromString(src).IsZero() {
		if got.Known {
			t.Errorf("line %d %s: got %s, source empty or zero", line, name, got.Amount)
		}
		return
	}
	if !got.Known || !got.Amount.Equal(decimal.RequireFromString(src)) {
		t.Errorf("line %d %s: got %v, source %s", line, name, got.Amount, src)
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range []string{"testdata/lambda-like.csv", "testdata/vast-like.csv"} {
		b, _ := os.ReadFile(p)
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.Price.Known && !r.Price.Amount.IsPositive() {
				t.Fatalf("known price %s is not positive", r.Price.Amount)
			}
			if r.AcceleratorCount < 0 || r.PerGPUMemoryMiB(true) < 0 {
				t.Fatal("negative count or memory")
			}
		}
	})
}

func FuzzPyLiteral(f *testing.F) {
	f.Add(`{'Gpus': [{'Name': 'A100', 'Count': 8, 'MemoryInfo': {'SizeInMiB': 40960}}], 'TotalGpuMemoryInMiB': 327680}`)
	f.Add(`[1, 2.5, "x", None, True]`)
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parsePyLiteral(s) // must not panic or hang
	})
}

// TestPriceExponentBounded: a price with an absurd exponent is refused as
// not a number before any arithmetic (decimal.NewFromString accepted it and
// later arithmetic on it took seconds); ordinary prices still parse.
func TestPriceExponentBounded(t *testing.T) {
	for _, s := range []string{"1e-99999999", "5e4000000", "0.13e-9999999"} {
		if p, err := optPrice(s); err == nil {
			t.Errorf("optPrice(%q) = %+v; want an error", s, p)
		}
	}
	if p, err := optPrice("31.92"); err != nil || !p.Known || p.Amount.String() != "31.92" {
		t.Errorf("optPrice(31.92) = %+v, %v", p, err)
	}
}
