package tencentdocs

import (
	"strings"
	"testing"
)

func TestParseCVMPageExcerpt(t *testing.T) {
	rows, err := ParseCVMPage(strings.NewReader(cvmExcerpt))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	if r := rows[0]; r.GPU() || r.InstanceType != "SA2.SMALL1" || r.Price.String() != "0.01" {
		t.Errorf("row 0 = %+v; want the non-GPU SA2.SMALL1 at 0.01", r)
	}
	r := rows[1]
	if !r.GPU() || r.Line != 10 || r.Region != "ap-guangzhou" || r.InstanceType != "GN10X.2XLARGE40" || r.VCPUs != 8 ||
		r.MemoryGB.String() != "40" || r.Price.String() != "2.68" || r.Processor != "Intel Xeon Skylake 6133(2.5 GHz)" {
		t.Errorf("row 1 = %+v; want line 10, GN10X.2XLARGE40 in ap-guangzhou, 8 vCPUs, 40 GB, 2.68 USD/hr", r)
	}
	if r := rows[2]; r.Heading != "Hongkong,China" || r.Region != "ap-hongkong" || r.Price.String() != "2.34" {
		t.Errorf("row 2 = %+v; want GN8.LARGE56 in ap-hongkong at 2.34", r)
	}
}

// TestParseCVMPageRefusesBadInput: a malformed or truncated page is an
// error naming the line and the value.
func TestParseCVMPageRefusesBadInput(t *testing.T) {
	gpuRow := "| GPU Compute GN10X                 | GN10X\\.2XLARGE40   | 8\\-core   | 40GB  | Intel Xeon Skylake 6133\\(2\\.5 GHz\\) | 2\\.68USD/hr  |\n"
	edit := func(old, new string) string {
		if !strings.Contains(cvmExcerpt, old) {
			t.Fatalf("the excerpt has no %q", old)
		}
		return strings.Replace(cvmExcerpt, old, new, 1)
	}
	cut := cvmExcerpt[:strings.Index(cvmExcerpt, "[Back to Top]")]
	for name, tc := range map[string]struct{ in, want string }{
		"empty":             {"", "no region section"},
		"truncated section": {cut, `at the end of the file: section "Guangzhou" (line 5) has no [Back to Top] link: the file is truncated`},
		"truncated page":    {cvmExcerpt[:strings.LastIndex(cvmExcerpt, "[Back to Top]")], `section "Hongkong,China" (line 14) has no [Back to Top] link`},
		"truncated row":     {cut[:len(cut)-60] + "\n", `line 10: table row "| GPU Compute GN10X`},
		"unclosed section":  {cut + "### Shanghai\n", `line 12: section "Guangzhou" (line 5) ends without its [Back to Top] link`},
		"unknown region":    {edit("### Guangzhou", "### Atlantis"), `line 5: region heading "Atlantis" is not one the feed knows; known: "Guangzhou"`},
		"region twice":      {edit("### Hongkong,China", "### Guangzhou"), `line 14: region "Guangzhou" has a second section (first on line 5)`},
		"fee not a price":   {edit(`2\.68USD/hr`, `2\.6\.8USD/hr`), `line 10: Fee "2.6.8" is not a price`},
		"fee in CNY":        {edit(`2\.68USD/hr`, `2\.68CNY/hr`), `line 10: Fee "2.68CNY/hr"; want a price in USD/hr`},
		"zero fee":          {edit(`0\.01USD/hr`, `0USD/hr`), `line 9: Fee "0" is out of range`},
		"vcpu":              {edit(`8\-core`, `eight`), `line 10: vCPU "eight"; want N-core`},
		"memory":            {edit("40GB", "40TB"), `line 10: MEM "40TB"; want NGB`},
		"family mismatch":   {edit("GPU Compute GN10X ", "GPU Compute GN8   "), `line 10: model "GPU Compute GN8" is family GN8, but the specification GN10X.2XLARGE40 is family GN10X`},
		"bad type":          {edit(`GN10X\.2XLARGE40`, "GN10X 2XLARGE40"), `line 10: Specification "GN10X 2XLARGE40" is not an instance type`},
		"row twice":         {edit(gpuRow, gpuRow+gpuRow), "line 11: GN10X.2XLARGE40 is listed twice in \"Guangzhou\" (first on line 10)"},
		"header":            {edit("| Fee          |\n| ----", "| Price        |\n| ----"), `line 7: header cell 6 is "Price"; want "Fee"`},
		"no separator":      {edit("| --------------------------------- | ------------------ | --------- | ----- | ----------------------------------- | ------------ |\n", ""), "line 8: want the table's separator row"},
		"row before region": {gpuRow + cvmExcerpt, "line 1: table row outside a region section"},
		"text in section":   {edit("\n[Back to Top](#CVMPricing)\n\n### Hong", "\nprices in USD\n[Back to Top](#CVMPricing)\n\n### Hong"), `line 12: text "prices in USD" inside region section "Guangzhou"`},
		"empty table":       {"### Guangzhou\n| Model | Specification | vCPU | MEM | Processor model (clock rate) | Fee |\n| --- | --- | --- | --- | --- | --- |\n[Back to Top](#CVMPricing)\n", "line 4: [Back to Top] link without a price table"},
		"not utf-8":         {edit("Standard SA2", "Standard \xff"), "line 9: not UTF-8"},
	} {
		_, err := ParseCVMPage(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v; want it to say %q", name, err, tc.want)
		}
	}
}
