package tencentdocs

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/shopspring/decimal"
)

// CVMRow is one row of the international site's CVM Linux price page: an
// instance type sold in a region, at a price in USD per hour.
type CVMRow struct {
	Line         int
	Heading      string // the section's region heading: "Hongkong,China"
	Region       string // the region it names: "ap-hongkong"
	Model        string // "GPU Compute GN7", "Standard SA2"
	InstanceType string
	VCPUs        int
	MemoryGB     decimal.Decimal
	Processor    string
	Price        decimal.Decimal // USD per hour
}

// GPU reports a GPU instance type: the page's model begins with "GPU".
func (r CVMRow) GPU() bool { return strings.HasPrefix(r.Model, "GPU ") }

// cvmHeader is the page's table header (escapes removed, spaces folded).
var cvmHeader = []string{"Model", "Specification", "vCPU", "MEM", "Processor model (clock rate)", "Fee"}

var (
	cvmVCPURE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([1-9][0-9]{0,3})-core$`) })
	cvmMemRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]{1,5}(?:\.[0-9]{1,3})?)GB$`) })
	cvmFeeRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S+)USD/hr$`) })
	backToTopRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[Back to Top\]\(#[A-Za-z]+\)$`) })
)

// cvmSection is the region section being read.
type cvmSection struct {
	line      int
	region    Region
	state     int // sectionOpen, headerRead, inTable, sectionClosed
	rows      int
	firstSeen map[string]int
}

const (
	sectionOpen = iota
	headerRead
	inTable
	sectionClosed
)

// ParseCVMPage reads the CVM Linux price page (云服务器价格(Linux)_intl_en.md):
// a "### REGION" section per region, each a table (Model, Specification,
// vCPU, MEM, Processor model, Fee) closed by a "[Back to Top]" link. Every
// row is read and checked, GPU or not; a section not closed by its link is
// a truncated file. An error names the line and the value.
func ParseCVMPage(r io.Reader) ([]CVMRow, error) {
	var (
		out     []CVMRow
		sec     *cvmSection
		regions = map[string]int{}
	)
	closeSection := func(at int) error {
		if sec != nil && sec.state != sectionClosed {
			return fmt.Errorf("line %d: section %q (line %d) ends without its [Back to Top] link: the file is truncated or not the CVM price page", at, sec.region.Heading, sec.line)
		}
		return nil
	}
	err := lines(r, func(n int, line string) error {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			return nil
		case strings.HasPrefix(t, "### "):
			if err := closeSection(n); err != nil {
				return err
			}
			h := strings.TrimSpace(strings.TrimPrefix(t, "### "))
			reg, ok := RegionForHeading(h)
			if !ok {
				return fmt.Errorf("line %d: region heading %s is not one the feed knows; known: %s", n, quoteCut(h), headings())
			}
			if first, dup := regions[h]; dup {
				return fmt.Errorf("line %d: region %q has a second section (first on line %d)", n, h, first)
			}
			regions[h] = n
			sec = &cvmSection{line: n, region: reg, firstSeen: map[string]int{}}
			return nil
		case strings.HasPrefix(t, "#"):
			if sec != nil {
				return fmt.Errorf("line %d: heading %s inside the region sections; want \"### REGION\"", n, quoteCut(t))
			}
			return nil // the page's title
		case backToTopRE().MatchString(t):
			if sec == nil || sec.state != inTable || sec.rows == 0 {
				return fmt.Errorf("line %d: [Back to Top] link without a price table before it", n)
			}
			sec.state = sectionClosed
			return nil
		}
		cells, isRow := tableCells(t)
		if !isRow && strings.HasPrefix(t, "|") {
			return fmt.Errorf("line %d: table row %s ends without its closing \"|\": the file is truncated or malformed", n, quoteCut(t))
		}
		if !isRow {
			if sec != nil {
				return fmt.Errorf("line %d: text %s inside region section %q; want table rows", n, quoteCut(t), sec.region.Heading)
			}
			return nil // the page's introduction
		}
		if sec == nil || sec.state == sectionClosed {
			return fmt.Errorf("line %d: table row outside a region section", n)
		}
		if len(cells) != len(cvmHeader) {
			return fmt.Errorf("line %d: %d cells; want %d (%s)", n, len(cells), len(cvmHeader), strings.Join(cvmHeader, ", "))
		}
		switch sec.state {
		case sectionOpen:
			for i, c := range cells {
				if collapse(c) != cvmHeader[i] {
					return fmt.Errorf("line %d: header cell %d is %s; want %q", n, i+1, quoteCut(c), cvmHeader[i])
				}
			}
			sec.state = headerRead
			return nil
		case headerRead:
			if !isSeparator(cells) {
				return fmt.Errorf("line %d: want the table's separator row (| --- | ... |) after its header", n)
			}
			sec.state = inTable
			return nil
		}
		row, err := cvmRow(n, sec.region, cells)
		if err != nil {
			return err
		}
		if first, dup := sec.firstSeen[row.InstanceType]; dup {
			return fmt.Errorf("line %d: %s is listed twice in %q (first on line %d)", n, row.InstanceType, sec.region.Heading, first)
		}
		sec.firstSeen[row.InstanceType] = n
		sec.rows++
		out = append(out, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if sec == nil {
		return nil, errors.New("no region section (### REGION): not the CVM price page")
	}
	if sec.state != sectionClosed {
		return nil, fmt.Errorf("at the end of the file: section %q (line %d) has no [Back to Top] link: the file is truncated", sec.region.Heading, sec.line)
	}
	return out, nil
}

// cvmRow checks and reads one price row.
func cvmRow(n int, reg Region, c []string) (CVMRow, error) {
	row := CVMRow{Line: n, Heading: reg.Heading, Region: reg.Name, Model: collapse(c[0]), InstanceType: c[1], Processor: c[4]}
	if row.Model == "" {
		return row, fmt.Errorf("line %d: empty Model cell", n)
	}
	if !instanceTypeRE().MatchString(row.InstanceType) {
		return row, fmt.Errorf("line %d: Specification %s is not an instance type; want FAMILY.SIZE such as GN7.2XLARGE32", n, quoteCut(c[1]))
	}
	if row.GPU() {
		if fam := row.Model[strings.LastIndexByte(row.Model, ' ')+1:]; fam != Family(row.InstanceType) {
			return row, fmt.Errorf("line %d: model %q is family %s, but the specification %s is family %s", n, row.Model, fam, row.InstanceType, Family(row.InstanceType))
		}
	}
	m := cvmVCPURE().FindStringSubmatch(c[2])
	if m == nil {
		return row, fmt.Errorf("line %d: vCPU %s; want N-core", n, quoteCut(c[2]))
	}
	row.VCPUs, _ = strconv.Atoi(m[1])
	m = cvmMemRE().FindStringSubmatch(c[3])
	if m == nil {
		return row, fmt.Errorf("line %d: MEM %s; want NGB", n, quoteCut(c[3]))
	}
	row.MemoryGB = decimal.RequireFromString(m[1])
	m = cvmFeeRE().FindStringSubmatch(c[5])
	if m == nil {
		return row, fmt.Errorf("line %d: Fee %s; want a price in USD/hr such as 2.68USD/hr", n, quoteCut(c[5]))
	}
	p, err := parsePrice("Fee", m[1], maxHourly)
	if err != nil {
		return row, fmt.Errorf("line %d: %w", n, err)
	}
	row.Price = p
	return row, nil
}
