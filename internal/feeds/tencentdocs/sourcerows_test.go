package tencentdocs_test

import (
	"bufio"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// The source rows read without the feed's parsers: plain line and cell
// splitting, so a parser bug cannot hide behind itself.

// srcRow is one table row as the file writes it, escapes removed.
type srcRow struct {
	line    int
	section string   // the "###" heading above it
	cells   []string // trimmed
}

// fileLines returns the file's lines.
func fileLines(t *testing.T, path string) []string {
	t.Helper()
	fh := shareddata.Open(t, path)
	var out []string
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// listSourceRows reads the CSV transcription: its data rows by line.
func listSourceRows(t *testing.T) map[int]srcRow {
	t.Helper()
	out := map[int]srcRow{}
	for i, l := range fileLines(t, files.List.Path) {
		if i == 0 || strings.TrimSpace(l) == "" {
			continue
		}
		out[i+1] = srcRow{line: i + 1, cells: strings.Split(l, ",")}
	}
	return out
}

// markdownSourceRows reads a Markdown page's table rows by line, leaving
// out header rows (first cell headerCell) and separator rows.
func markdownSourceRows(t *testing.T, path, headerCell string) map[int]srcRow {
	t.Helper()
	out := map[int]srcRow{}
	section := ""
	for i, l := range fileLines(t, path) {
		if strings.HasPrefix(l, "### ") {
			section = strings.TrimPrefix(l, "### ")
			continue
		}
		if !strings.HasPrefix(l, "|") || strings.Contains(l, "| -") {
			continue
		}
		parts := strings.Split(strings.ReplaceAll(l, `\`, ""), "|")
		cells := make([]string, 0, len(parts))
		for _, p := range parts[1 : len(parts)-1] {
			cells = append(cells, strings.TrimSpace(p))
		}
		if cells[0] == headerCell {
			continue
		}
		out[i+1] = srcRow{line: i + 1, section: section, cells: cells}
	}
	return out
}

// cvmSourceRows: the CVM page's rows (Model, Specification, vCPU, MEM, Processor, Fee).
func cvmSourceRows(t *testing.T) map[int]srcRow {
	return markdownSourceRows(t, files.CVM.Path, "Model")
}

// overviewSourceRows: the GPU overview's rows (Specification, GPU, GPU memory, vCPU, Memory, price).
func overviewSourceRows(t *testing.T) map[int]srcRow {
	return markdownSourceRows(t, files.Overview.Path, "Instance Specification")
}
