package tencentdocs

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Limits on what a page may hold: far above the real pages (the CVM page
// is 0.2 MB), so that a wrong file is refused rather than read.
const (
	maxFileBytes = 4 << 20
	maxLineBytes = 64 << 10
	// maxHourly bounds any hourly price, in its own currency; maxMonthly
	// a month's (a month of the largest hourly price).
	maxHourly  = 100000
	maxMonthly = maxHourly * 744
)

var (
	// plainNumberRE is how the pages write a price: digits, a point, digits.
	plainNumberRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{1,9}(\.[0-9]{1,6})?$`) })
	// instanceTypeRE is a CVM instance type: FAMILY.SIZE ("GN10Xp.2XLARGE40", "SN3ne.16XLARGE128").
	instanceTypeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Za-z0-9]{0,15}\.[A-Z0-9]{1,24}$`) })
	// separatorCellRE is a cell of a Markdown table's separator row.
	separatorCellRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^:?-{3,}:?$`) })
)

// parsePrice reads a price written as a plain decimal: above 0 and at most
// limit. what names the value in the error ("the fee").
func parsePrice(what, s string, limit int64) (decimal.Decimal, error) {
	if !plainNumberRE().MatchString(s) {
		return decimal.Decimal{}, fmt.Errorf("%s %q is not a price; want a plain decimal such as 16.21", what, s)
	}
	d, err := money.ParseDecimal(s)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%s %q: %w", what, s, err)
	}
	if !d.IsPositive() || d.GreaterThan(decimal.NewFromInt(limit)) {
		return decimal.Decimal{}, fmt.Errorf("%s %q is out of range; want above 0 and at most %d", what, s, limit)
	}
	return d, nil
}

// lines reads r line by line (without line ends), calling fn with each
// line's number; it refuses files and lines beyond the limits and text
// that is not UTF-8.
func lines(r io.Reader, fn func(n int, line string) error) error {
	sc := bufio.NewScanner(io.LimitReader(r, maxFileBytes+1))
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	n, size := 0, 0
	for sc.Scan() {
		n++
		size += len(sc.Bytes()) + 1
		if size > maxFileBytes {
			return fmt.Errorf("line %d: the file is larger than %d MiB: not a price page", n, maxFileBytes>>20)
		}
		line := strings.TrimSuffix(sc.Text(), "\r")
		if !utf8.ValidString(line) {
			return fmt.Errorf("line %d: not UTF-8 text", n)
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("line %d: %w", n+1, err)
	}
	return nil
}

// tableCells splits a Markdown table row ("| a | b |") into its cells,
// trimmed, with Markdown's backslash escapes removed ("2\.68" is "2.68");
// ok is false when the line is not a table row.
func tableCells(line string) (cells []string, ok bool) {
	t := strings.TrimSpace(line)
	if len(t) < 2 || t[0] != '|' || t[len(t)-1] != '|' || strings.HasSuffix(t, `\|`) {
		return nil, false
	}
	var cur strings.Builder
	for i := 1; i < len(t)-1; i++ {
		switch c := t[i]; {
		case c == '\\' && i+1 < len(t)-1 && isEscapable(t[i+1]):
			cur.WriteByte(t[i+1])
			i++
		case c == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(cur.String())), true
}

// isEscapable is Markdown's set of backslash-escapable characters.
func isEscapable(c byte) bool { return strings.IndexByte("\\`*_{}[]()#+-.!|<>~\"'", c) >= 0 }

// isSeparator reports a table's separator row ("| --- | --- |").
func isSeparator(cells []string) bool {
	for _, c := range cells {
		if !separatorCellRE().MatchString(c) {
			return false
		}
	}
	return len(cells) > 0
}

// collapse folds runs of spaces into one, for comparing header cells.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// quoteCut shortens a value for an error message.
func quoteCut(s string) string {
	const n = 60
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// gpuCount reads a GPU count as both pages write it, matched by their
// patterns: a whole count, or a fraction num/den of one GPU (a vGPU slice);
// false for a "fraction" of one or more.
func gpuCount(whole, num, den string) (float64, bool) {
	if whole != "" {
		n, _ := strconv.Atoi(whole)
		return float64(n), true
	}
	a, _ := strconv.Atoi(num)
	b, _ := strconv.Atoi(den)
	if a >= b {
		return 0, false
	}
	return float64(a) / float64(b), true
}
