package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
)

// row is one plan of a real advise table, as its columns show it.
type row struct {
	rank                       int
	provider, inst, region     string
	gpu                        string
	count                      float64
	instances                  int
	link, model, term, payment string
	total, upfront             string
	hours                      float64
	priced                     string
	stale, asked               bool
}

func plansOf(cur money.Currency, rows []row) []advise.Plan {
	var out []advise.Plan
	for _, r := range rows {
		o := &catalog.Offering{Provider: r.provider, InstanceType: r.inst, Region: r.region, GPU: &catalog.GPU{Name: r.gpu},
			GPUCount: r.count, Interconnect: r.link}
		out = append(out, advise.Plan{Rank: r.rank, Offering: o, Instances: r.instances, Model: r.model, Term: r.term, Payment: r.payment,
			Total: money.New(decimal.RequireFromString(r.total), cur), Currency: cur, ExpectedHours: r.hours,
			UpfrontCash: money.New(decimal.RequireFromString(r.upfront), cur), PriceAsOf: r.priced, Stale: r.stale, AsAsked: r.asked})
	}
	return out
}

// adviseChina is advise --china --scenario inference-online
// --hours-per-month 730 --currency CNY: a steady load, no deadline.
func adviseChina() (*advise.Result, *advise.Request) {
	sub := func(rank int, inst, region, gpu string, count float64, n int, link, total, upfront string) row {
		return row{rank, "tencent", inst, region, gpu, count, n, link, "subscription", "1mo", "monthly", total, upfront, 0, "2021-01-01", true, false}
	}
	od := func(rank int, provider, inst, region, gpu string, count float64, n int, link, total, priced string) row {
		return row{rank, provider, inst, region, gpu, count, n, link, "on-demand", "", "on-demand", total, "0", 0, priced, true, false}
	}
	rows := []row{
		sub(1, "GN10X.2XLARGE40", "ap-beijing", "V100-SXM2-32GB", 1, 2, "none", "124560", "10380"),
		sub(2, "GN10X.4XLARGE80", "ap-chengdu", "V100-SXM2-32GB", 2, 1, "nvlink", "126000", "10500"),
		sub(3, "GN10Xp.2XLARGE40", "ap-beijing", "V100-SXM2-32GB", 1, 2, "none", "138000", "11500"),
		sub(4, "GN10Xp.5XLARGE80", "ap-beijing", "V100-SXM2-32GB", 2, 1, "nvlink", "138000", "11500"),
		sub(5, "GN7.2XLARGE32", "ap-beijing", "T4", 1, 5, "none", "150000", "12500"),
		sub(6, "GT4.4XLARGE96", "ap-beijing", "A100-SXM4-40GB", 1, 1, "none", "164976", "13748"),
		od(7, "tencent", "GN10Xp.2XLARGE40", "ap-beijing", "V100-SXM2-32GB", 1, 2, "none", "209889.60", "2021-01-01"),
		od(8, "tencent", "GN10Xp.5XLARGE80", "ap-beijing", "V100-SXM2-32GB", 2, 1, "nvlink", "209889.60", "2021-01-01"),
		od(9, "alibaba", "ecs.gn7i-c8g1.2xlarge", "cn-heyuan", "A10", 1, 3, "none", "225466.63", "2024-12-30"),
		od(10, "aws", "g4dn.xlarge", "cn-north-1", "T4", 1, 5, "none", "228767.40", "2024-11-06"),
	}
	return &advise.Result{Plans: plansOf("CNY", rows)}, &advise.Request{Scenario: &advise.Scenario{Name: "inference-online"}}
}

// adviseArticle is advise --scenario cv-training --gpu A100:4 --for 7d: a
// job, the shape asked for on five providers, nebius's long names.
func adviseArticle() (*advise.Result, *advise.Request) {
	r := func(rank int, provider, inst, region, gpu string, count float64, link, model, total string, hours float64, priced string, stale, asked bool) row {
		return row{rank, provider, inst, region, gpu, count, 1, link, model, "", model, total, "0", hours, priced, stale, asked}
	}
	rows := []row{
		r(1, "aws", "p5.48xlarge", "us-west-2", "H100-SXM5-80GB", 8, "nvswitch", "spot", "280.44", 29.9, "2026-07-09", false, false),
		r(2, "nebius", "gpu-h100-sxm_8gpu-128vcpu-1600gb", "eu-north1", "H100-SXM5-80GB", 8, "nvswitch", "spot", "299.29", 29.9, "2026-07-09", false, false),
		r(3, "nebius", "gpu-b200-sxm-a_8gpu-160vcpu-1792gb", "me-west1", "B200", 8, "nvswitch", "spot", "302.94", 13.1, "2026-07-09", false, false),
		r(4, "nebius", "gpu-b200-sxm_8gpu-160vcpu-1792gb", "us-central1", "B200", 8, "nvswitch", "spot", "302.94", 13.1, "2026-07-09", false, false),
		r(5, "nebius", "gpu-h200-sxm_8gpu-128vcpu-1600gb", "eu-north1", "H200-SXM-141GB", 8, "nvswitch", "spot", "311.87", 26.9, "2026-07-09", false, false),
		r(6, "aws", "p4d.24xlarge", "ca-central-1", "A100-SXM4-40GB", 8, "nvswitch", "spot", "434.78", 84.2, "2026-07-09", false, false),
		r(7, "vast", "8x-H100_SXM-32-65536", "Vietnam, VN, AS", "H100-SXM5-80GB", 8, "nvswitch", "on-demand", "444.54", 29.8, "2026-07-09", false, false),
		r(8, "vast", "2x-H100_SXM-32-65536", "South Korea, KR, AS", "H100-SXM5-80GB", 2, "unknown", "on-demand", "470.10", 125.7, "2026-07-09", false, false),
		r(9, "vast", "8x-H200-32-65536", "France, FR, EU", "H200-SXM-141GB", 8, "nvswitch", "on-demand", "553.19", 26.7, "2026-07-09", false, false),
		r(10, "seeweb", "ECS8GPU10", "", "H200-SXM-141GB", 8, "nvswitch", "on-demand", "555.60", 26.7, "2026-07-09", false, false),
		r(15, "seeweb", "ECS3GPU3", "", "A100-80GB", 4, "unknown", "on-demand", "665.28", 168, "2026-07-09", false, true),
		r(25, "lambda", "gpu_4x_a100", "asia-northeast-1", "A100-40GB", 4, "unknown", "on-demand", "1337.28", 168, "2026-07-09", false, true),
		r(40, "azure", "Standard_NC96ads_A100_v4", "eastus", "A100-PCIe-80GB", 4, "pcie", "on-demand", "2468.26", 168, "2026-06-18", false, true),
		r(46, "alibaba", "ecs.gn7-c13g1.13xlarge", "cn-wulanchabu", "A100-40GB", 4, "nvswitch", "on-demand", "2658.80", 168, "2024-12-30", true, true),
		r(51, "tencent", "GT4.20XLARGE474", "ap-beijing", "A100-SXM4-40GB", 4, "nvlink", "on-demand", "2776.89", 168, "2021-01-01", true, true),
	}
	return &advise.Result{Plans: plansOf("USD", rows)}, &advise.Request{Scenario: &advise.Scenario{Name: "cv-training"},
		WorkGPUHours: 672, Ask: &advise.Ask{Name: "A100", Count: 4, Hours: 168, For: "7d"}}
}

// The advise table at 80, 100 and 120 columns, with the rows of the user
// trial: where (REGION), how many (×N) and how old the price (PRICED) are
// always shown, and the PRICED footnote with them; what says nothing goes
// first; an instance name is never split; the table is as wide as it says.
// The old fitting left out PRICED at 120 under its own footnote, REGION and
// ×N at 80, split "ecs.gn7i-c8g1." / "2xlarge" and ran 88 columns wide at 80.
func TestFitAdviseWidths(t *testing.T) {
	for _, tc := range []struct {
		name        string
		table       func() (*advise.Result, *advise.Request)
		width       int
		wantHeaders string
		wantNote    string // the last note: what went, or that the table cannot fit
		wantCell    string // a cell the table shows
	}{
		{"china", adviseChina, 120, "#,PROVIDER,INSTANCE,REGION,GPU,×N,PLAN,TOTAL CNY,UPFRONT,PRICED",
			"Left out to fit 120 columns: LINK; --wide shows them.", "subscription"},
		{"china", adviseChina, 100, "#,PROVIDER,INSTANCE,REGION,×N,LINK,PLAN,TOTAL CNY,PRICED",
			"Left out to fit 100 columns: UPFRONT, GPU; --wide shows them.", "1mo monthly"},
		{"china", adviseChina, 80, "#,INSTANCE,REGION,×N,PLAN,TOTAL CNY,PRICED",
			"Left out to fit 80 columns: LINK, UPFRONT, GPU, PROVIDER; --wide shows them.", "subscr. 1mo"},
		{"article", adviseArticle, 120, "#,PROVIDER,INSTANCE,REGION,×N,PLAN,TOTAL USD,HOURS,PRICED",
			"Left out to fit 120 columns: UPFRONT (0.00 in every row), LINK, GPU; --wide shows them.", "15*"},
		{"article", adviseArticle, 100, "#,INSTANCE,REGION,×N,PLAN,TOTAL USD,PRICED",
			"Left out to fit 100 columns: UPFRONT (0.00 in every row), LINK, HOURS, GPU, PROVIDER; --wide shows them.", "South Korea, KR, AS"},
		// Nebius's 34-character names, asia-northeast-1 and a date need 97
		// columns: the table says so rather than cut a name.
		{"article", adviseArticle, 80, "#,INSTANCE,REGION,×N,PLAN,TOTAL USD,PRICED",
			"The table is 97 columns wide, more than 80: no name is split, and no other column may go. Left out: UPFRONT (0.00 in every row), LINK, HOURS, GPU, PROVIDER; --wide shows them.", "South Korea, KR,"},
	} {
		res, req := tc.table()
		tb := AdviseTable(res, req, 10)
		FitAdvise(tb, tc.width)
		var b bytes.Buffer
		if err := tb.Write(&b, render.FormatTable, render.Options{}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		var h []string
		for _, c := range tb.Columns {
			h = append(h, c.Header)
		}
		if got := strings.Join(h, ","); got != tc.wantHeaders {
			t.Errorf("%s at %d: headers %s, want %s", tc.name, tc.width, got, tc.wantHeaders)
		}
		if got := tb.Notes[len(tb.Notes)-1]; strings.Contains(got, "Left out") || strings.Contains(got, "The table is") {
			t.Errorf("%s at %d: FitAdvise's notes end with %q: the fitting note is render's", tc.name, tc.width, got)
		}
		joined := strings.Join(strings.Fields(out), " ")
		if !strings.Contains(joined, tc.wantNote) {
			t.Errorf("%s at %d: no note %q:\n%s", tc.name, tc.width, tc.wantNote, out)
		}
		if !strings.Contains(out, tc.wantCell) {
			t.Errorf("%s at %d: no cell %q:\n%s", tc.name, tc.width, tc.wantCell, out)
		}
		if !strings.Contains(out, "PRICED: the date of the oldest price") {
			t.Errorf("%s at %d: the PRICED footnote is gone:\n%s", tc.name, tc.width, out)
		}
		lines := strings.Split(out, "\n")
		grid := 0 // the header and the rows, before the first note
		for _, l := range lines {
			if strings.HasPrefix(l, "PRICED:") {
				break
			}
			grid = max(grid, cells(l))
		}
		if claimed := tb.Width(); grid != claimed || (grid > tc.width && !strings.Contains(joined, "The table is")) {
			t.Errorf("%s at %d: the rows are %d wide, the table says %d:\n%s", tc.name, tc.width, grid, claimed, out)
		}
		words := map[string]bool{}
		for _, w := range strings.Fields(out) {
			words[w] = true
		}
		for _, p := range res.Plans {
			if !words[p.Offering.InstanceType] {
				t.Errorf("%s at %d: %s is not whole:\n%s", tc.name, tc.width, p.Offering.InstanceType, out)
			}
		}
	}
}

// cells counts display cells: an East Asian wide character is two.
func cells(s string) int { return render.DisplayWidth(s) }

// Wherever old prices are marked, at any width down to render's least, the
// PRICED column is shown and its footnote explains it.
func TestFitAdviseKeepsPricedWithItsFootnote(t *testing.T) {
	for _, w := range []int{render.MinWidth, 60, 80, 100, 120, 200} {
		for _, mk := range []func() (*advise.Result, *advise.Request){adviseChina, adviseArticle} {
			res, req := mk()
			tb := AdviseTable(res, req, 10)
			FitAdvise(tb, w)
			priced := false
			for _, c := range tb.Columns {
				priced = priced || c.Header == "PRICED"
			}
			note := false
			for _, n := range tb.Notes {
				note = note || strings.HasPrefix(n, stalePrefix)
			}
			if !priced || !note {
				t.Errorf("%s at %d: PRICED column %v, footnote %v; want both", req.Scenario.Name, w, priced, note)
			}
		}
	}
}
