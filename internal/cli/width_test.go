package cli

import (
	"bytes"
	"encoding/csv"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gpuscout/gpuscout/internal/render"
)

// testColumns stands in for $COLUMNS in this package's tests, so that the
// developer's shell cannot change a golden file: tests set it with t.Setenv.
const testColumns = "GPUSCOUT_TEST_COLUMNS"

func init() { columnsEnv = func() string { return os.Getenv(testColumns) } }

func TestTableWidth(t *testing.T) {
	for _, tc := range []struct {
		columns string
		want    int
	}{
		{"", 120},                       // unset: the default
		{"80", 80},                      // a terminal's own
		{" 200 ", 200},                  // spaces around it
		{"abc", 120},                    // nonsense is ignored
		{"0", 120},                      // so is zero
		{"-5", 120},                     // and a negative width
		{"12", 40},                      // too narrow to be useful: the floor
		{"99999", 1000},                 // the ceiling
		{"1e3", 120},                    // not a whole number
		{"80.5", 120},                   // nor a fraction
		{"9999999999999999999999", 120}, // past int: nonsense
	} {
		// A bytes.Buffer is no terminal, so COLUMNS decides.
		if got := tableWidth(&bytes.Buffer{}, tc.columns); got != tc.want {
			t.Errorf("tableWidth(COLUMNS=%q) = %d, want %d", tc.columns, got, tc.want)
		}
	}
}

// tooWide reads the note of a table that cannot fit: its width and the
// terminal's.
var tooWide = regexp.MustCompile(`The table is (\d+) columns wide, more than (\d+):`)

// cells counts display cells: an East Asian wide character is two.
func cells(s string) int { return render.DisplayWidth(s) }

// TestListingsFitTheTerminal renders every listing at 80, 120 and 200
// columns and checks that no line is wider, except a line that is one
// unbreakable word (a URL in a note) after its indentation, or the grid of
// a table that says it cannot fit, and how wide it is: then no line is
// wider than it says, and one is as wide; --wide keeps the full table.
func TestListingsFitTheTerminal(t *testing.T) {
	listings := [][]string{
		{"offers", "--gpu", "A100:8"},
		{"offers", "--provider", "alibaba,tencent", "--gpu", "A100", "--currency", "CNY"},
		{"advise", "--china", "--scenario", "inference-online", "--hours-per-month", "730", "--currency", "CNY"},
		{"gpus"},
		{"models"},
		{"catalog", "info"},
		{"catalog", "sources"},
		{"cost", "--offering", "gcp/a2-highgpu-8g/us-central1", "--hours-per-month", "420", "--horizon", "3y"},
		{"cost", "breakeven", "--offering", "gcp/a2-highgpu-8g", "--term", "1y"},
		{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--limit", "3"},
		{"spot", "--offering", "aws/p4d.24xlarge/us-east-1", "--work", "72h", "--deadline", "100h", "--band", "10-15%", "--policy", "all,optimal", "--runs", "50"},
	}
	for _, w := range []int{80, 120, 200} {
		t.Run(strconv.Itoa(w), func(t *testing.T) {
			t.Setenv(testColumns, strconv.Itoa(w))
			for _, args := range listings {
				out, errOut, code := run(t, args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errOut)
				}
				claimed, widest := 0, 0 // the width a table says it needs, and the widest line past w
				if m := tooWide.FindStringSubmatch(strings.Join(strings.Fields(out), " ")); m != nil {
					claimed, _ = strconv.Atoi(m[1])
					if m[2] != strconv.Itoa(w) {
						t.Errorf("%v at %d columns: the note says the table is more than %s", args, w, m[2])
					}
				}
				for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
					if !utf8.ValidString(line) {
						t.Errorf("%v at %d: a line is not UTF-8 (a character cut in two): %q", args, w, line)
					}
					if cells(line) <= w {
						continue
					}
					if f := strings.Fields(line); len(f) == 1 {
						continue // one unbreakable word, allowed
					}
					if widest = max(widest, cells(line)); cells(line) <= claimed {
						continue // a table row that says the table cannot fit
					}
					t.Errorf("%v at %d columns: a line of %d:\n%s", args, w, cells(line), line)
				}
				if claimed > 0 && widest != claimed {
					t.Errorf("%v at %d columns: the table says it is %d columns wide; its widest line is %d", args, w, claimed, widest)
				}
			}
		})
	}
	for _, args := range listings[:3] { // offers, gpus, models: the goldens hold the others' fitted form
		out, _, _ := run(t, append(args, "--wide")...)
		widest := 0
		for _, line := range strings.Split(out, "\n") {
			widest = max(widest, cells(line))
		}
		if widest <= 120 {
			t.Errorf("%v --wide: widest line %d, want the full table (over 120)", args, widest)
		}
	}
}

// CSV and JSON never depend on the width, and Markdown only hides empty
// columns: the same output at 80 columns as at 1000.
func TestMachineFormatsIgnoreWidth(t *testing.T) {
	for _, args := range [][]string{
		{"offers", "--gpu", "A100:8", "-o", "csv"},
		{"offers", "--gpu", "A100:8", "-o", "json"},
		{"offers", "--gpu", "A100:8", "-o", "markdown"},
		{"catalog", "sources", "-o", "markdown"},
	} {
		t.Setenv(testColumns, "80")
		narrow, _, code := run(t, args...)
		t.Setenv(testColumns, "1000")
		wide, _, _ := run(t, args...)
		if code != 0 || narrow != wide {
			t.Errorf("%v: exit %d; output at 80 columns differs from 1000:\n%s\n---\n%s", args, code, narrow, wide)
		}
		if strings.Contains(narrow, "Left out to fit") {
			t.Errorf("%v: a machine format was narrowed:\n%s", args, narrow)
		}
	}
}

// advise's CSV keeps every column: it used to lose LINK and REGION, which
// the text table drops to fit.
func TestAdviseCSVKeepsColumns(t *testing.T) {
	out, _, _ := run(t, "advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--limit", "3", "-o", "csv")
	if head, _, _ := strings.Cut(out, "\n"); !strings.Contains(head, "LINK") || !strings.Contains(head, "REGION") {
		t.Errorf("advise -o csv header %q lacks LINK or REGION", head)
	}
}

// TestNamesAreNeverSplit: at 80, 100 and 120 columns every instance name
// advise and offers list, and every URL catalog sources cites, is one word
// of the text output, as -o csv has it: nothing is cut to fit a column.
func TestNamesAreNeverSplit(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		column string
	}{
		{[]string{"advise", "--china", "--scenario", "inference-online", "--hours-per-month", "730", "--currency", "CNY"}, "INSTANCE"},
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d"}, "INSTANCE"},
		{[]string{"offers", "--provider", "alibaba,tencent", "--gpu", "A100", "--currency", "CNY"}, "INSTANCE"},
		{[]string{"catalog", "sources"}, "WHERE"},
	} {
		csvOut, errOut, code := run(t, append(tc.args, "-o", "csv")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
		if err != nil || len(recs) < 2 {
			t.Fatalf("%v -o csv: %v (%d records)", tc.args, err, len(recs))
		}
		col := slices.Index(recs[0], tc.column)
		if col < 0 {
			t.Fatalf("%v -o csv: no %s column in %q", tc.args, tc.column, recs[0])
		}
		for _, w := range []int{80, 100, 120} {
			t.Setenv(testColumns, strconv.Itoa(w))
			out, _, _ := run(t, tc.args...)
			words := map[string]bool{}
			for _, f := range strings.Fields(out) {
				words[f] = true
			}
			for _, r := range recs[1:] {
				if name := r[col]; name != "" && name != "-" && !words[name] {
					t.Errorf("%v at %d columns: %q is not whole in the table:\n%s", tc.args, w, name, out)
				}
			}
		}
	}
}
