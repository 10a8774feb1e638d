package catalog

import (
	"strings"
	"testing"
)

// An empty selection says which filter emptied it.
func TestWhyNone(t *testing.T) {
	c := mustDefault(t)
	a100, err := c.LookupGPU("A100")
	if err != nil {
		t.Fatal(err)
	}
	h100, err := c.LookupGPU("H100")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    Query
		want string
	}{
		{"a count no instance has", Query{GPUs: a100, GPUCount: 3}, "no offering has 3 × A100 (any of its 6 variants); instances that match the other filters have 1, 2, 4, 8 of them"},
		{"an instance without the GPU", Query{GPUs: h100, Providers: []string{"aws"}, InstanceTypes: []string{"p4d.24xlarge"}}, "aws/p4d.24xlarge has 8 × A100-SXM4-40GB, not H100"},
		{"filters that never meet", Query{GPUs: a100, Providers: []string{"tencent"}, Regions: []string{"us-east-1"}}, "no offering matches every filter given"},
		{"a query that selects", Query{GPUs: a100, GPUCount: 8}, ""},
	} {
		if got := c.WhyNone(tc.q); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q; want %q", tc.name, got, tc.want)
		}
	}
}
