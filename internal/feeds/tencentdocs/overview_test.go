package tencentdocs

import (
	"strings"
	"testing"
)

func TestParseOverviewExcerpt(t *testing.T) {
	ov, err := ParseOverview(strings.NewReader(overviewExcerpt))
	if err != nil {
		t.Fatal(err)
	}
	if ov.Place != "Guangzhou Zone 3" || ov.Region.Name != "ap-guangzhou" || ov.Zone != "ap-guangzhou-3" || ov.PlaceLine != 6 {
		t.Errorf("place %q (%s, %s, line %d); want Guangzhou Zone 3, ap-guangzhou, ap-guangzhou-3, line 6", ov.Place, ov.Region.Name, ov.Zone, ov.PlaceLine)
	}
	if len(ov.Rows) != 3 {
		t.Fatalf("%d rows, want 3", len(ov.Rows))
	}
	if r := ov.Rows[0]; r.Line != 13 || r.Family != "GN7" || r.GPUModel != "NVIDIA T4" || r.InstanceType != "GN7.LARGE20" || r.GPUCount != 0.25 ||
		r.GPUMemoryGB != 4 || r.VCPUs != 4 || r.MemoryGB != 20 || r.Price.String() != "0.49" {
		t.Errorf("row 0 = %+v; want line 13, GN7.LARGE20, 1/4 of a T4 with 4 GB, 4 vCPUs, 20 GB, 0.49 USD/hr", r)
	}
	if r := ov.Rows[2]; r.InstanceType != "GN10Xp.2XLARGE40" || r.VCPUs != 10 || r.MemoryGB != 40 || r.Price.String() != "1.72" {
		t.Errorf("row 2 = %+v; want GN10Xp.2XLARGE40, 10 vCPUs, 40 GB, 1.72 USD/hr", r)
	}
}

// TestParseOverviewRefusesBadInput: a malformed or truncated page is an
// error naming the line and the value.
func TestParseOverviewRefusesBadInput(t *testing.T) {
	edit := func(old, new string) string {
		if !strings.Contains(overviewExcerpt, old) {
			t.Fatalf("the excerpt has no %q", old)
		}
		return strings.Replace(overviewExcerpt, old, new, 1)
	}
	for name, tc := range map[string]struct{ in, want string }{
		"empty":          {"", "no price table"},
		"truncated":      {overviewExcerpt[:strings.Index(overviewExcerpt, "\n## Repossession")], "the page ends inside the GN10Xp section, before its closing sections: the file is truncated"},
		"truncated row":  {overviewExcerpt[:strings.Index(overviewExcerpt, "| 32 GB")], `line 20: table row "| GN10Xp.2XLARGE40   | 1`},
		"no zone":        {edit("The prices on this page are for Guangzhou Zone 3.", "Prices differ by zone."), "the zone the prices are for is unknown"},
		"unknown zone":   {edit("Guangzhou Zone 3.", "Atlantis Zone 3."), `line 6: "Atlantis Zone 3": unknown region "Atlantis"`},
		"two zones":      {edit(">\n\n### Computing GN7", "> The prices on this page are for Shanghai Zone 2.\n\n### Computing GN7"), "line 7: a second statement of the zone"},
		"bad price":      {edit("0.49 USD/hr", "0.4.9 USD/hr"), `line 13: Pay-as-You-Go "0.4.9" is not a price`},
		"price in CNY":   {edit("0.49 USD/hr", "3.39 CNY/hr"), `line 13: Pay-as-You-Go "3.39 CNY/hr"; want a price such as`},
		"zero price":     {edit("8.06 USD/hr", "0 USD/hr"), `line 14: Pay-as-You-Go "0" is out of range`},
		"bad gpus":       {edit("1/4 vGPU", "quarter"), `line 13: GPU "quarter"; want a count`},
		"whole fraction": {edit("1/4 vGPU", "4/4 vGPU"), "line 13: GPU \"4/4 vGPU\": a fraction of one GPU is below 1"},
		"gpu memory":     {edit("| 64 GB ", "| 64 TB "), `line 14: GPU Video Memory "64 TB"; want N GB`},
		"vcpus":          {edit("| 10 cores |", "| ten |"), `line 20: vCPU "ten"; want N or N cores`},
		"memory":         {edit("| 40 GB  |", "| 40 TB  |"), `line 20: Memory "40 TB"; want N or N GB`},
		"family":         {edit("| GN10Xp.2XLARGE40 ", "| GN10X.2XLARGE40 "), "line 20: GN10X.2XLARGE40 is family GN10X, in the GN10Xp section"},
		"twice":          {edit("| GN7.20XLARGE320 |", "| GN7.LARGE20 |"), "line 14: GN7.LARGE20 is listed twice (first on line 13)"},
		"no table":       {edit("### Computing GN10Xp\n\n| Instance", "### Computing GN8\n\n### Computing GN10Xp\n\n| Instance"), "line 18: the GN8 section has no price table"},
		"heading":        {edit("### Computing GN7", "### GN7 prices"), `line 9: heading "### GN7 prices"; want "### Computing FAMILY"`},
		"header":         {edit("| Memory | Pay-as-You-Go |\n| -----", "| Memory | Monthly |\n| -----"), `line 11: header cell 6 is "Monthly"; want "Pay-as-You-Go"`},
		"gpu header":     {edit("GPU (NVIDIA T4)", "Accelerator"), `line 11: header cell 2 is "Accelerator"; want "GPU (MODEL)"`},
		"section after":  {overviewExcerpt + "### Computing GN8\n", "line 24: price section GN8 after the page's closing sections"},
		"row after":      {overviewExcerpt + "| GN8.LARGE56 | 1 | 24 GB | 6 cores | 56 GB | 2.45 USD/hr |\n", "line 24: table row outside"},
		"text in table":  {edit("| 8.06 USD/hr |\n", "| 8.06 USD/hr |\nsee below\n"), `line 15: text "see below" right after the GN7 table`},
	} {
		_, err := ParseOverview(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v; want it to say %q", name, err, tc.want)
		}
	}
}
