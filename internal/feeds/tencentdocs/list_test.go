package tencentdocs

import (
	"strings"
	"testing"
)

func TestParseListExcerpt(t *testing.T) {
	rows, err := ParseList(strings.NewReader(listExcerpt))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	r := rows[1]
	if r.Line != 3 || r.InstanceType != "GN10X.2XLARGE40" || r.GPUModel != "V100-32G" || r.GPUCount != 1 ||
		r.MonthlyLow.String() != "4671" || r.MonthlyHigh.String() != "5190" || r.HourlyLow.String() != "16.21" || r.HourlyHigh.String() != "18.04" {
		t.Errorf("row = %+v; want line 3 GN10X.2XLARGE40 V100-32G x1, 4671-5190 a month, 16.21-18.04 an hour", r)
	}
	if g := rows[2]; g.GPUModel != "T4" || g.GPUCount != 0.25 {
		t.Errorf("GN7.LARGE20 gpu %q x%v; want T4 x0.25", g.GPUModel, g.GPUCount)
	}
}

// TestParseListRefusesBadInput: a malformed or truncated file is an error
// naming the line, the column and the value.
func TestParseListRefusesBadInput(t *testing.T) {
	head := "instance_type,gpu,monthly_cny_low,monthly_cny_high,hourly_cny_low,hourly_cny_high\n"
	for name, tc := range map[string]struct{ in, want string }{
		"empty":          {"", "line 1: the file is empty"},
		"other header":   {"type,gpu,monthly,hourly\nGT4.4XLARGE96,A100-40G x1,1,2\n", "line 1: header"},
		"header only":    {head, "no rows"},
		"truncated row":  {head + "GT4.4XLARGE96,A100-40G x1,13748\n", "line 2"},
		"not a number":   {head + "GT4.4XLARGE96,A100-40G x1,abc,13748,28.64,28.64\n", `line 2: monthly_cny_low "abc" is not a price`},
		"zero":           {head + "GT4.4XLARGE96,A100-40G x1,13748,13748,0,28.64\n", `line 2: hourly_cny_low "0" is out of range`},
		"exponent":       {head + "GT4.4XLARGE96,A100-40G x1,13748,13748,2.8e1,28.64\n", `hourly_cny_low "2.8e1" is not a price`},
		"negative":       {head + "GT4.4XLARGE96,A100-40G x1,13748,13748,28.64,-28.64\n", `hourly_cny_high "-28.64" is not a price`},
		"huge":           {head + "GT4.4XLARGE96,A100-40G x1,13748,999999999,28.64,28.64\n", `monthly_cny_high "999999999" is out of range`},
		"low above high": {head + "GN10X.2XLARGE40,V100-32G x1,5190,4671,16.21,18.04\n", "line 2: monthly_cny_low 5190 is above monthly_cny_high 4671"},
		"twice":          {head + "GN6.7XLARGE48,P4 x1,2600,2600,9,9\nGN6.7XLARGE48,P4 x1,2600,2600,9,9\n", `line 3: instance_type "GN6.7XLARGE48" is listed twice (first on line 2)`},
		"bad type":       {head + "gt4 large,A100-40G x1,13748,13748,28.64,28.64\n", `line 2: instance_type "gt4 large" is not an instance type`},
		"bad gpu":        {head + "GT4.4XLARGE96,A100-40G,13748,13748,28.64,28.64\n", `line 2: gpu "A100-40G"`},
		"whole fraction": {head + "GN7.LARGE20,T4 4/4,877,975,3.05,3.39\n", "a fraction of one GPU is below 1"},
		"quote":          {head + "GT4.4XLARGE96,\"A100\n", "line 2"},
	} {
		_, err := ParseList(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v; want it to say %q", name, err, tc.want)
		}
	}
}
