package dashboard

import (
	"testing"

	"github.com/gpuscout/gpuscout/internal/render"
)

// gistOf says what a plan asked and what it ranks first, from the JSON of
// `advise -o json`; a steady or bursty load's total is over its horizon,
// which the work says (1576.8 USD for 730 h/month of L4 read as a month's).
func TestPlanGist(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       planGist
	}{
		{"a job as asked", `{"plans":[{"provider":"aws","instance_type":"p5.48xlarge","region":"us-west-2","instances":1,"pricing_model":"spot","total_cost":278.873269,"currency":"USD","expected_hours":29.76}],
			"inputs":{"scenario":"cv-training","reference_gpu":"A100-SXM4-40GB","work_gpu_hours":672,"ask":{"gpu":"A100","count":4,"hours":168}}}`,
			planGist{"cv-training", "4 × A100 for 7d", "aws p5.48xlarge (us-west-2) spot", "278.87 USD", "29.8", 1}},
		{"a steady load over a year", `{"plans":[{"provider":"vast","instance_type":"1x-Tesla_V100-32-65536","region":"The Netherlands, NL, EU","instances":2,"pricing_model":"on-demand","total_cost":1576.8,"currency":"USD","expected_hours":0}],
			"inputs":{"scenario":"inference-online","reference_gpu":"L4","hours_per_month":730,"horizon_months":12}}`,
			planGist{"inference-online", "730 h/month of L4 over 12 months", "2 × vast 1x-Tesla_V100-32-65536 (The Netherlands, NL, EU) on-demand", "1576.80 USD", render.NotApplied, 1}},
		{"a steady load of two GPUs", `{"plans":[],"inputs":{"scenario":"inference-online","reference_gpu":"L4","reference_gpu_count":2,"hours_per_month":730,"horizon_months":36}}`,
			planGist{"inference-online", "730 h/month of 2 × L4 over 36 months", "no plan fits", render.NotApplied, render.NotApplied, 0}},
		{"bursty", `{"plans":[],"inputs":{"scenario":"inference-online","reference_gpu":"L4","bursty":true,"horizon_months":6}}`,
			planGist{"inference-online", "bursty load of L4 over 6 months", "no plan fits", render.NotApplied, render.NotApplied, 0}},
		{"GPU-hours, total unknown", `{"plans":[{"provider":"alibaba","instance_type":"ecs.gn7i-c8g1.2xlarge","region":"","pricing_model":"on-demand","total_cost":null,"currency":"CNY"}],
			"inputs":{"scenario":"inference-batch","reference_gpu":"A10","work_gpu_hours":100}}`,
			planGist{"inference-batch", "100 GPU-h of A10", "alibaba ecs.gn7i-c8g1.2xlarge (-) on-demand", render.Unknown, render.NotApplied, 1}},
		{"no inputs", `{}`, planGist{render.Unknown, render.Unknown, "no plan fits", render.NotApplied, render.NotApplied, 0}},
	} {
		got, err := gistOf([]byte(tc.body))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if *got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, *got, tc.want)
		}
	}
	if _, err := gistOf([]byte(`[1,2]`)); err == nil {
		t.Errorf("a JSON array: no error, want one")
	}
}
