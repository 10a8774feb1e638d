package awscapacityblocks

import (
	"strings"
	"testing"
)

// excerpt is two rows of the real table (p5.48xlarge us-east-1 and a Local
// Zone; koyakimu/ec2-capacity-blocks-for-ml-pricing-json data/pricing.json).
const excerpt = `{
  "metadata": {
    "last_updated": "2026-07-22T07:14:56Z",
    "source_url": "https://aws.amazon.com/ec2/capacityblocks/pricing/",
    "version": "1.0.0"
  },
  "instance_types": {
    "p5.48xlarge": {
      "instance_family": "P5",
      "accelerator_type": "H100",
      "accelerator_count": 8,
      "pricing": [
        {
          "region": "US East (N. Virginia)",
          "region_code": "us-east-1",
          "hourly_rate_usd": 41.528,
          "accelerator_hourly_rate_usd": 5.191
        },
        {
          "region": "US East (Atlanta) Local Zone",
          "region_code": "us-east-1-atl-2a",
          "hourly_rate_usd": 41.528,
          "accelerator_hourly_rate_usd": 5.191
        }
      ]
    }
  }
}
`

func TestParseExcerpt(t *testing.T) {
	tab, err := Parse(strings.NewReader(excerpt))
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Updated.Format("2006-01-02T15:04:05Z"); got != "2026-07-22T07:14:56Z" {
		t.Errorf("Updated %s", got)
	}
	if len(tab.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(tab.Rows))
	}
	r := tab.Rows[0]
	if r.Line != 13 || r.InstanceType != "p5.48xlarge" || r.RegionCode != "us-east-1" || r.Hourly.String() != "41.528" ||
		r.PerAccelerator.String() != "5.191" || r.AcceleratorType != "H100" || r.AcceleratorCount != 8 || r.RegionName != "US East (N. Virginia)" {
		t.Errorf("row 0 = %+v", r)
	}
	if tab.Rows[1].Line != 19 || tab.Rows[1].RegionCode != "us-east-1-atl-2a" {
		t.Errorf("row 1 = %+v", tab.Rows[1])
	}
}

// TestParseRefuses: every bad table is refused with its line, key and value.
func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ name, old, new, want string }{
		{"truncated", excerpt, excerpt[:300], "line "},
		{"no date", `"last_updated": "2026-07-22T07:14:56Z",`, ``, "no metadata.last_updated"},
		{"bad date", `2026-07-22T07:14:56Z`, `yesterday`, `metadata.last_updated "yesterday"`},
		{"zero price", `"hourly_rate_usd": 41.528,
          "accelerator_hourly_rate_usd": 5.191
        },
        {`, `"hourly_rate_usd": 0,
          "accelerator_hourly_rate_usd": 0
        },
        {`, `line 13: p5.48xlarge us-east-1 hourly_rate_usd "0": want above 0`},
		{"price not a number", `"hourly_rate_usd": 41.528,
          "accelerator_hourly_rate_usd": 5.191
        },
        {`, `"hourly_rate_usd": "about 41",
          "accelerator_hourly_rate_usd": 5.191
        },
        {`, "line 13: p5.48xlarge pricing row: json: invalid number literal"},
		{"huge exponent", `"hourly_rate_usd": 41.528,
          "accelerator_hourly_rate_usd": 5.191
        },
        {`, `"hourly_rate_usd": 1e999999,
          "accelerator_hourly_rate_usd": 5.191
        },
        {`, `hourly_rate_usd "1e999999"`},
		{"missing price", `"hourly_rate_usd": 41.528,
          "accelerator_hourly_rate_usd": 5.191
        },
        {`, `"accelerator_hourly_rate_usd": 5.191
        },
        {`, "hourly_rate_usd \"\": missing"},
		{"rates disagree", `"hourly_rate_usd": 41.528,
          "accelerator_hourly_rate_usd": 5.191
        },
        {`, `"hourly_rate_usd": 4.1528,
          "accelerator_hourly_rate_usd": 5.191
        },
        {`, "line 13: p5.48xlarge us-east-1 hourly_rate_usd 4.1528 is not accelerator_hourly_rate_usd 5.191 × 8 accelerators (41.528)"},
		{"bad region", `"region_code": "us-east-1",`, `"region_code": "US East",`, `region_code "US East"`},
		{"region twice", `"region_code": "us-east-1-atl-2a",`, `"region_code": "us-east-1",`, "region_code us-east-1 given twice"},
		{"no accelerators", `"accelerator_count": 8,`, `"accelerator_count": 0,`, `accelerator_count "0"`},
		{"bad type name", `"p5.48xlarge": {`, `"P5 (48xlarge)": {`, `instance type "P5 (48xlarge)"`},
		{"key twice", `"accelerator_count": 8,`, `"accelerator_count": 8, "accelerator_count": 9,`, `key "accelerator_count" given twice`},
		{"junk after", excerpt, excerpt + "{}", "data after the table"},
		{"not an object", excerpt, `[1, 2]`, `line 1: the file: want "{", got [`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(excerpt, tc.old, tc.new, 1)
			if in == excerpt {
				t.Fatalf("the case changes nothing")
			}
			_, err := Parse(strings.NewReader(in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// FuzzParse: any input is parsed or refused, never a panic, and what is
// parsed keeps the table's invariants.
func FuzzParse(f *testing.F) {
	f.Add(excerpt)
	f.Add(`{"metadata":{"last_updated":"2026-07-22T07:14:56Z"},"instance_types":{"a.b":{"accelerator_type":"X","accelerator_count":1,"pricing":[{"region_code":"us-east-1","hourly_rate_usd":1,"accelerator_hourly_rate_usd":1}]}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		tab, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		if tab.Updated.IsZero() || len(tab.Rows) == 0 {
			t.Fatalf("parsed a table without a date or rows: %+v", tab)
		}
		for _, r := range tab.Rows {
			if !r.Hourly.IsPositive() || r.AcceleratorCount < 1 || r.Line < 1 || !regionCodeRE().MatchString(r.RegionCode) {
				t.Fatalf("bad row %+v", r)
			}
		}
	})
}
