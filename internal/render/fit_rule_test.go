package render

import (
	"slices"
	"strings"
	"testing"
)

// offersChina is offers --provider alibaba,tencent --gpu A100 --currency CNY
// as the offers command builds it: its columns (headers, Short, Drop) and
// its real rows, SPOT unknown on every one.
func offersChina() *Table {
	return &Table{Columns: []Column{
		{Header: "PROVIDER"}, {Header: "INSTANCE"}, {Header: "GPU", Drop: 1}, {Header: "QTY", Right: true},
		{Header: "GPU GiB", Right: true, Short: "GiB", Drop: 4}, {Header: "vCPU", Right: true, Drop: 6}, {Header: "MEM GiB", Right: true, Drop: 7},
		{Header: "LINK", Drop: 5}, {Header: "REGION", Drop: 2}, {Header: "CNY/h", Right: true}, {Header: "SPOT CNY/h", Right: true, Short: "SPOT/h"},
		{Header: "CNY/GPU-h", Right: true, Short: "/GPU-h", Drop: 3},
	}, Currency: "CNY", Legend: true, Rows: [][]string{
		{"alibaba", "ecs.gn7-c12g1.3xlarge", "A100-40GB", "1", "40", "12", "94", "none", "cn-wulanchabu", "28.4250", "?", "28.4250"},
		{"tencent", "GT4.4XLARGE96", "A100-SXM4-40GB", "1", "40", "16", "96", "none", "ap-beijing", "28.6400", "?", "28.6400"},
		{"alibaba", "ecs.gn7e-c16g1.4xlarge", "A100-80GB", "1", "80", "16", "125", "none", "cn-wulanchabu", "31.2670", "?", "31.2670"},
		{"tencent", "GT4.8XLARGE192", "A100-SXM4-40GB", "2", "40", "32", "192", "nvlink", "ap-beijing", "57.2800", "?", "28.6400"},
		{"alibaba", "ecs.gn7e-c16g1.8xlarge", "A100-80GB", "2", "80", "32", "250", "nvlink", "cn-wulanchabu", "62.5350", "?", "31.2675"},
		{"alibaba", "ecs.gn7-c13g1.13xlarge", "A100-40GB", "4", "40", "52", "378", "nvswitch", "cn-wulanchabu", "113.7000", "?", "28.4250"},
		{"tencent", "GT4.20XLARGE474", "A100-SXM4-40GB", "4", "40", "82", "474", "nvlink", "ap-beijing", "118.7500", "?", "29.6875"},
		{"alibaba", "ecs.gn7e-c16g1.16xlarge", "A100-80GB", "4", "80", "64", "500", "nvlink", "cn-wulanchabu", "125.0700", "?", "31.2675"},
		{"alibaba", "ecs.gn7-c13g1.26xlarge", "A100-40GB", "8", "40", "104", "756", "nvswitch", "cn-wulanchabu", "227.4000", "?", "28.4250"},
		{"tencent", "GT4.41XLARGE948", "A100-SXM4-40GB", "8", "40", "164", "948", "nvlink", "ap-beijing", "237.5100", "?", "29.6888"},
		{"alibaba", "ecs.ebmgn7e.32xlarge", "A100-80GB", "8", "80", "128", "1024", "nvlink", "cn-wulanchabu", "250.1400", "?", "31.2675"},
		{"alibaba", "ecs.gn7e-c16g1.32xlarge", "A100-80GB", "8", "80", "128", "1000", "nvlink", "cn-wulanchabu", "250.1400", "?", "31.2675"},
		{"alibaba", "ecs.ebmgn7.26xlarge", "A100-40GB", "8", "40", "104", "768", "nvswitch", "cn-beijing", "252.6667", "?", "31.5833"},
		{"alibaba", "ecs.ebmgn7ex.32xlarge", "A100-80GB", "8", "80", "128", "1024", "nvlink", "cn-beijing", "270.8333", "?", "33.8542"},
	}}
}

// gridWidth is the widest line of a text table before its notes (the
// header and the rows: lines that start with a cell of the first column).
func gridWidth(out string, rows int) int {
	w := 0
	for _, l := range strings.Split(out, "\n")[:rows+1] {
		w = max(w, displayWidth(l))
	}
	return w
}

// The fitting rule on a real offers table at 80, 100 and 120 columns: the
// column that says nothing (SPOT, "?" on every row) goes first, where
// (REGION) and how many (QTY) always stay although offers lets REGION go
// (Drop 2), and the table is as narrow as it says. The old rule kept SPOT/h
// at 80 columns and left REGION out.
func TestFitOffersWidths(t *testing.T) {
	for _, tc := range []struct {
		width       int
		wantHeaders string
		wantNote    string
	}{
		{120, "PROVIDER,INSTANCE,GPU,QTY,GiB,vCPU,MEM GiB,LINK,REGION,CNY/h,/GPU-h",
			"Left out to fit 120 columns: SPOT CNY/h (? in every row); --wide shows them."},
		{100, "PROVIDER,INSTANCE,GPU,QTY,GiB,vCPU,REGION,CNY/h,/GPU-h",
			"Left out to fit 100 columns: SPOT CNY/h (? in every row), MEM GiB, LINK; --wide shows them."},
		{80, "PROVIDER,INSTANCE,GPU,QTY,REGION,CNY/h",
			"Left out to fit 80 columns: SPOT CNY/h (? in every row), MEM GiB, vCPU, LINK, GPU GiB, CNY/GPU-h; --wide shows them."},
	} {
		tb := offersChina()
		tb.Fit(tc.width)
		if got := headers(tb); got != tc.wantHeaders {
			t.Errorf("at %d: headers %s, want %s", tc.width, got, tc.wantHeaders)
		}
		if got := strings.Join(tb.fitNote(), "|"); got != tc.wantNote {
			t.Errorf("at %d: note %q, want %q", tc.width, got, tc.wantNote)
		}
		out := text(t, tb)
		if w := gridWidth(out, len(tb.Rows)); w > tc.width {
			t.Errorf("at %d: the table is %d wide:\n%s", tc.width, w, out)
		}
		if strings.Contains(out, LegendNote) {
			t.Errorf("at %d: the legend explains a ? no shown cell has:\n%s", tc.width, out)
		}
	}
}

// A column says nothing when every cell is "", "-", "?" or a zero (0.00,
// 0.0%): it goes before any column whose Drop says it may, Keep or not,
// only when the table is too wide, and the note says what it held. A zero
// with " +?" (a partial sum) says something.
func TestFitSilentColumnsFirst(t *testing.T) {
	mk := func() *Table {
		return &Table{Columns: []Column{{Header: "INSTANCE"}, {Header: "REGION"}, {Header: "NOTE", Drop: 9},
			{Header: "P(MISS)", Right: true}, {Header: "UPFRONT", Right: true}, {Header: "SPOT", Right: true}, {Header: "PART", Right: true}, {Header: "PRICED"}},
			Rows: [][]string{
				{"p5.48xlarge", "us-west-2", "a note that may go", "0.0%", "0.00", "?", "0 +?", "2026-07-09"},
				{"p4d.24xlarge", "?", "another note", "0.0%", "0.00", "-", "0.00", "2026-07-09"},
			}}
	}
	tb := mk()
	tb.Fit(200)
	if got, want := headers(tb), "INSTANCE,REGION,NOTE,P(MISS),UPFRONT,SPOT,PART,PRICED"; got != want {
		t.Errorf("a table that fits keeps its columns: %s, want %s", got, want)
	}
	tb = mk()
	tb.Fit(66) // 12+9+18+7+7+4+7+10 + 14 = 88; without SPOT 82, UPFRONT 73, P(MISS) 64
	if got, want := headers(tb), "INSTANCE,REGION,NOTE,PART,PRICED"; got != want {
		t.Errorf("headers %s, want %s", got, want)
	}
	if got, want := strings.Join(tb.fitNote(), ""), "Left out to fit 66 columns: SPOT (? or - in every row), UPFRONT (0.00 in every row), P(MISS) (0.0% in every row); --wide shows them."; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
}

// REGION, QTY, ×N and PRICED, and any Keep column, stay whatever their
// Drop; a column the width needs no more comes back, the most important
// (the last to go) first.
func TestFitKeepsWhereHowManyHowOld(t *testing.T) {
	tb := &Table{Columns: []Column{{Header: "INSTANCE"}, {Header: "REGION", Drop: 9}, {Header: "×N", Drop: 9, Right: true},
		{Header: "WIDE", Drop: 3}, {Header: "NARROW", Drop: 2}, {Header: "OWN", Drop: 9, Keep: true}, {Header: "PRICED", Drop: 9}},
		Rows: [][]string{{"GN10X.2XLARGE40", "ap-beijing", "1×2", strings.Repeat("w", 30), "n", "o", "2021-01-01†"}}}
	tb.Fit(70) // 15+10+3+30+6+3+11 + 12 = 90: WIDE goes (60), then NARROW (52); NARROW fits again
	if got, want := headers(tb), "INSTANCE,REGION,×N,NARROW,OWN,PRICED"; got != want {
		t.Errorf("headers %s, want %s", got, want)
	}
	if got, want := strings.Join(tb.fitNote(), ""), "Left out to fit 70 columns: WIDE; --wide shows them."; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
}

// No word of any cell is split, at any width: an instance name or a URL in
// a Prose column is as wide as the column gets, and a long one in the last
// column runs past the width on a line of its own, said once. The old rule
// cut "ecs.gn7i-c8g1." / "2xlarge" and URLs after their last separator.
func TestFitNeverSplitsNames(t *testing.T) {
	mk := func() *Table {
		return &Table{Columns: []Column{{Header: "#", Right: true}, {Header: "INSTANCE", Prose: true}, {Header: "REGION", Prose: true, MinWrap: 1},
			{Header: "PLAN", Prose: true, MinWrap: 1}, {Header: "TITLE", Prose: true}},
			Rows: [][]string{
				{"1", "gpu-b200-sxm-a_8gpu-160vcpu-1792gb", "me-west1", "spot", "Nebius GPU platform"},
				{"2", "ecs.gn7i-c8g1.2xlarge", "South Korea, KR, AS", "subscription 1mo monthly", "Alibaba Cloud ECS documentation, GPU-accelerated compute-optimized instance families"},
				{"3", "8x-H100_SXM-32-65536", "cn-heyuan", "on-demand", "the GA102 whitepaper https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf"},
			}}
	}
	for _, width := range []int{40, 80, 100, 120} {
		tb := mk()
		tb.Fit(width)
		out := text(t, tb)
		words := map[string]bool{}
		for _, w := range strings.Fields(out) {
			words[w] = true
		}
		for _, r := range mk().Rows {
			for _, cell := range r {
				for _, w := range strings.Fields(cell) {
					if !words[w] {
						t.Errorf("at %d: %q is split:\n%s", width, w, out)
					}
				}
			}
		}
		long := 0 // lines past the width for a URL
		for _, l := range strings.Split(out, "\n") {
			if displayWidth(l) <= width {
				continue
			}
			if f := strings.Fields(l); strings.HasPrefix(f[len(f)-1], "https://") {
				long++
			} else if displayWidth(l) > tb.Width() || !strings.Contains(out, "The table is") {
				t.Errorf("at %d: a line runs past the width for no URL, and no note says the table cannot fit: %q", width, l)
			}
		}
		if tb.Width() <= width && long > 0 && !strings.Contains(out, "past") {
			t.Errorf("at %d: %d lines run past the width and no note says why:\n%s", width, long, out)
		}
	}
}

// An Under column (URLs) goes under its rows, whole and indented, when the
// table is too wide for it, before any column is left out; its cells
// that say nothing write no line.
func TestFitUnder(t *testing.T) {
	url := "https://github.com/aws/karpenter-provider-aws/blob/main/pkg/providers/pricing/zz_generated.pricing_aws.go"
	mk := func() *Table {
		return &Table{Columns: []Column{{Header: "SOURCE"}, {Header: "AS OF"}, {Header: "WHERE", Prose: true, Under: true, Drop: 1},
			{Header: "TITLE", Prose: true, Drop: 2}},
			Rows: [][]string{{"karpenter-aws@2026-07-20", "2026-07-20", url, "Karpenter AWS on-demand price map"}, {"ml-engineering", "?", "-", "stas00/ml-engineering"}}}
	}
	tb := mk()
	tb.Fit(80)
	out := text(t, tb)
	want := "SOURCE                    AS OF       TITLE\n" +
		"karpenter-aws@2026-07-20  2026-07-20  Karpenter AWS on-demand price map\n" +
		"  " + url + "\n" +
		"ml-engineering            ?           stas00/ml-engineering\n" +
		"WHERE: under each row, whole, on a line of its own.\n" +
		"1 line runs past 80 columns to keep a URL or name whole, so that it can be\n" +
		"  copied.\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	tb = mk()
	tb.Fit(200) // it fits: WHERE stays a column
	if got := headers(tb); got != "SOURCE,AS OF,WHERE,TITLE" || strings.Contains(text(t, tb), "under each row") {
		t.Errorf("at 200: headers %s, want WHERE as a column", got)
	}
}

// A table whose kept columns are wider than the width says so once, with
// the width it is, which is the width of its widest line.
func TestFitSaysWhenItCannot(t *testing.T) {
	tb := &Table{Columns: []Column{{Header: "#", Right: true}, {Header: "INSTANCE"}, {Header: "REGION"}, {Header: "×N", Right: true},
		{Header: "TOTAL USD", Right: true}, {Header: "PRICED"}, {Header: "GPU", Drop: 1}},
		Rows: [][]string{{"3", "gpu-b200-sxm-a_8gpu-160vcpu-1792gb", "asia-northeast-1", "8×1", "302.94", "2026-07-09", "B200"}}}
	tb.Fit(60)
	out := text(t, tb)
	want := "The table is 83 columns wide, more than 60: no name is split, and no other column may go. Left out: GPU; --wide shows them."
	if got := strings.Join(tb.fitNote(), ""); got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	if w := gridWidth(out, 1); w != 83 || !slices.Contains(strings.Split(out, "\n"), "The table is 83 columns wide, more than 60: no name is") {
		t.Errorf("the grid is %d wide, want 83, with the note wrapped at 60:\n%s", w, out)
	}
}
