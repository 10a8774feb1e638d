package advise

import (
	"fmt"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// tenfold is the default catalog with every offering also sold in nine more
// regions of its provider at the same prices: ten times the offerings, as a
// large price file would add.
func tenfold(b *testing.B, a *Advisor) *Advisor {
	b.Helper()
	c := a.Catalog.Clone()
	base := c.Offerings
	out := make([]catalog.Offering, 0, 10*len(base))
	out = append(out, base...)
	for k := 1; k < 10; k++ {
		for _, o := range base {
			o.Region = fmt.Sprintf("%s-x%d", o.Region, k)
			o.Zone = ""
			out = append(out, o)
		}
	}
	c.Offerings = out
	d := *a
	d.Catalog = c
	return &d
}

// BenchmarkAdviseScale plans a 10-day fine-tuning job (the README's LoRA
// example's work) on the catalog and on ten times the catalog: the time may
// grow with the offerings, not faster (measured on the 2-core box: 26 ms and
// 105 ms, 4.0×; before the remembered uniform optima 34 and 124 ms).
func BenchmarkAdviseScale(b *testing.B) {
	a := advisor(b, money.USD)
	for _, tc := range []struct {
		name string
		a    *Advisor
	}{{"1x", a}, {"10x", tenfold(b, a)}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				req := request(b, tc.a, "llm-finetuning", "A100-SXM4-40GB")
				req.WorkGPUHours, req.Deadline = 1256, 240
				if _, err := tc.a.Advise(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
