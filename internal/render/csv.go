package render

import (
	"encoding/csv"
	"io"
	"regexp"
	"strings"
	"sync"
)

// CSV is for machines: numbers are written raw, and what the text table marks
// inside a cell gets a column of its own. In the right-aligned (number)
// columns: thousands separators go; "12.5%" is written 12.5 under a header
// that ends in "%"; a converted price's "*" becomes CONVERTED=true; a
// partial total's "+?" becomes PARTIAL=true; "-", "?", "n/a" and "unknown"
// are an empty cell, and "?" (unknown) is one in every column. The table's currency is a CURRENCY column.

var numberCell = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([-+]?[0-9][0-9,]*(?:\.[0-9]+)?)(%?)(\*?)((?: \+\?)?)$`)
})

var missingCell = map[string]bool{"": true, "-": true, "?": true, "n/a": true, "unknown": true}

func (t *Table) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	percent := make([]bool, len(t.Columns))
	converted, partial := false, false
	for _, r := range t.Rows {
		for i, cell := range r {
			if i >= len(t.Columns) || !t.Columns[i].Right {
				continue
			}
			if m := numberCell().FindStringSubmatch(strings.TrimSpace(cell)); m != nil {
				percent[i] = percent[i] || m[2] != ""
				converted = converted || m[3] != ""
				partial = partial || m[4] != ""
			}
		}
	}
	head := make([]string, 0, len(t.Columns)+3)
	for i, c := range t.Columns {
		h := c.Header
		if percent[i] && !strings.Contains(h, "%") {
			h += " %"
		}
		head = append(head, h)
	}
	if t.Currency != "" {
		head = append(head, "CURRENCY")
	}
	if converted {
		head = append(head, "CONVERTED")
	}
	if partial {
		head = append(head, "PARTIAL")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
		out := make([]string, 0, len(head))
		conv, part := false, false
		for i, cell := range r {
			c := strings.TrimSpace(cell)
			if i < len(t.Columns) && t.Columns[i].Right {
				if m := numberCell().FindStringSubmatch(c); m != nil {
					c = strings.ReplaceAll(m[1], ",", "")
					conv = conv || m[3] != ""
					part = part || m[4] != ""
				} else if missingCell[c] {
					c = ""
				}
			} else if c == "?" { // unknown is an empty cell in every column
				c = ""
			}
			out = append(out, c)
		}
		if t.Currency != "" {
			out = append(out, t.Currency)
		}
		if converted {
			out = append(out, boolCell(conv))
		}
		if partial {
			out = append(out, boolCell(part))
		}
		if err := cw.Write(out); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func boolCell(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
