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

// Overview is the international site's GPU price overview: pay-as-you-go
// prices in USD per hour, all for the one zone the page names.
type Overview struct {
	PlaceLine int    // the line naming the zone
	Place     string // as written: "Guangzhou Zone 3"
	Region    Region
	Zone      string // "ap-guangzhou-3"
	Rows      []OverviewRow
}

// OverviewRow is one instance type of the overview.
type OverviewRow struct {
	Line         int
	Family       string // the section's family: "GN10Xp"
	GPUModel     string // the table's GPU column: "Tesla V100-NVLINK-32G"
	InstanceType string
	GPUCount     float64 // 1, or 0.25 for "1/4 vGPU"
	GPUMemoryGB  int
	VCPUs        int
	MemoryGB     int
	Price        decimal.Decimal // USD per hour
}

var (
	ovPlaceRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`The prices on this page are for ([^.]+)\.`) })
	ovFamilyRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^### Computing ([A-Z][A-Za-z0-9]{0,15})$`) })
	ovGPUHeadRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^GPU \((.+)\)$`) })
	ovGPUsRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:([1-9][0-9]?)|([1-9])/([1-9]) vGPU)$`) })
	ovGBRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([1-9][0-9]{0,4}) GB$`) })
	ovCountRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([1-9][0-9]{0,4})(?: cores| GB)?$`) })
	ovPriceRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S+) USD/hr$`) })
)

// ovHeader is the tables' header; the GPU cell names the GPU ("GPU (Tesla P4)").
var ovHeader = []string{"Instance Specification", "GPU (…)", "GPU Video Memory", "vCPU", "Memory", "Pay-as-You-Go"}

// Where the overview parser is.
const (
	ovBefore  = iota // before the first family section
	ovFamily         // a family heading read, its table header next
	ovHeader1        // the header read, the separator next
	ovTable          // in a family's table
	ovAfter          // past the tables (a "##" section after them)
)

// ParseOverview reads the GPU price overview (价格总览_intl_en.md): the
// sentence naming the zone its prices are for, then a "### Computing
// FAMILY" section per family, each a table (Instance Specification, GPU,
// GPU Video Memory, vCPU, Memory, Pay-as-You-Go), then the page's further
// "##" sections. A page that ends inside the tables is truncated. An error
// names the line and the value.
func ParseOverview(r io.Reader) (*Overview, error) {
	ov := &Overview{}
	state, family, gpuModel := ovBefore, "", ""
	seen := map[string]int{}
	families := map[string]int{}
	err := lines(r, func(n int, line string) error {
		t := strings.TrimSpace(line)
		if m := ovPlaceRE().FindStringSubmatch(t); m != nil {
			if ov.PlaceLine != 0 {
				return fmt.Errorf("line %d: a second statement of the zone the prices are for (first on line %d)", n, ov.PlaceLine)
			}
			reg, zone, err := ZoneForPlace(strings.TrimSpace(m[1]))
			if err != nil {
				return fmt.Errorf("line %d: %w", n, err)
			}
			ov.PlaceLine, ov.Place, ov.Region, ov.Zone = n, strings.TrimSpace(m[1]), reg, zone
			return nil
		}
		switch {
		case t == "":
			return nil
		case strings.HasPrefix(t, "### "):
			m := ovFamilyRE().FindStringSubmatch(t)
			if m == nil {
				return fmt.Errorf("line %d: heading %s; want \"### Computing FAMILY\"", n, quoteCut(t))
			}
			if state == ovFamily || state == ovHeader1 {
				return fmt.Errorf("line %d: the %s section has no price table", n, family)
			}
			if state == ovAfter {
				return fmt.Errorf("line %d: price section %s after the page's closing sections", n, m[1])
			}
			if first, dup := families[m[1]]; dup {
				return fmt.Errorf("line %d: family %s has a second section (first on line %d)", n, m[1], first)
			}
			families[m[1]] = n
			state, family = ovFamily, m[1]
			return nil
		case strings.HasPrefix(t, "#"):
			switch state {
			case ovFamily, ovHeader1:
				return fmt.Errorf("line %d: the %s section has no price table", n, family)
			case ovTable:
				state = ovAfter
			}
			return nil
		}
		cells, isRow := tableCells(t)
		if !isRow && strings.HasPrefix(t, "|") {
			return fmt.Errorf("line %d: table row %s ends without its closing \"|\": the file is truncated or malformed", n, quoteCut(t))
		}
		if !isRow {
			if state == ovTable {
				return fmt.Errorf("line %d: text %s right after the %s table; want the next \"### Computing\" section or a \"##\" heading", n, quoteCut(t), family)
			}
			return nil // the page's prose
		}
		if state == ovBefore || state == ovAfter {
			return fmt.Errorf("line %d: table row outside a \"### Computing FAMILY\" section", n)
		}
		if len(cells) != len(ovHeader) {
			return fmt.Errorf("line %d: %d cells; want %d (%s)", n, len(cells), len(ovHeader), strings.Join(ovHeader, ", "))
		}
		switch state {
		case ovFamily:
			for i, c := range cells {
				if i == 1 {
					m := ovGPUHeadRE().FindStringSubmatch(collapse(c))
					if m == nil {
						return fmt.Errorf("line %d: header cell 2 is %s; want \"GPU (MODEL)\"", n, quoteCut(c))
					}
					gpuModel = m[1]
					continue
				}
				if collapse(c) != ovHeader[i] {
					return fmt.Errorf("line %d: header cell %d is %s; want %q", n, i+1, quoteCut(c), ovHeader[i])
				}
			}
			state = ovHeader1
			return nil
		case ovHeader1:
			if !isSeparator(cells) {
				return fmt.Errorf("line %d: want the table's separator row (| --- | ... |) after its header", n)
			}
			state = ovTable
			return nil
		}
		row, err := overviewRow(n, family, gpuModel, cells)
		if err != nil {
			return err
		}
		if first, dup := seen[row.InstanceType]; dup {
			return fmt.Errorf("line %d: %s is listed twice (first on line %d)", n, row.InstanceType, first)
		}
		seen[row.InstanceType] = n
		ov.Rows = append(ov.Rows, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case len(ov.Rows) == 0:
		return nil, errors.New("no price table (### Computing FAMILY): not the GPU price overview")
	case state != ovAfter:
		return nil, fmt.Errorf("at the end of the file: the page ends inside the %s section, before its closing sections: the file is truncated", family)
	case ov.PlaceLine == 0:
		return nil, errors.New("no sentence \"The prices on this page are for CITY Zone N.\": the zone the prices are for is unknown")
	}
	return ov, nil
}

// overviewRow checks and reads one price row.
func overviewRow(n int, family, gpuModel string, c []string) (OverviewRow, error) {
	row := OverviewRow{Line: n, Family: family, GPUModel: gpuModel, InstanceType: c[0]}
	if !instanceTypeRE().MatchString(row.InstanceType) {
		return row, fmt.Errorf("line %d: Instance Specification %s is not an instance type; want FAMILY.SIZE such as GN10Xp.2XLARGE40", n, quoteCut(c[0]))
	}
	if f := Family(row.InstanceType); f != family {
		return row, fmt.Errorf("line %d: %s is family %s, in the %s section", n, row.InstanceType, f, family)
	}
	m := ovGPUsRE().FindStringSubmatch(collapse(c[1]))
	if m == nil {
		return row, fmt.Errorf("line %d: GPU %s; want a count (\"2\") or a fraction of one (\"1/4 vGPU\")", n, quoteCut(c[1]))
	}
	var ok bool
	if row.GPUCount, ok = gpuCount(m[1], m[2], m[3]); !ok {
		return row, fmt.Errorf("line %d: GPU %s: a fraction of one GPU is below 1", n, quoteCut(c[1]))
	}
	var err error
	if row.GPUMemoryGB, err = atoiMatch(ovGBRE(), collapse(c[2])); err != nil {
		return row, fmt.Errorf("line %d: GPU Video Memory %s; want N GB", n, quoteCut(c[2]))
	}
	if row.VCPUs, err = atoiMatch(ovCountRE(), collapse(c[3])); err != nil {
		return row, fmt.Errorf("line %d: vCPU %s; want N or N cores", n, quoteCut(c[3]))
	}
	if row.MemoryGB, err = atoiMatch(ovCountRE(), collapse(c[4])); err != nil {
		return row, fmt.Errorf("line %d: Memory %s; want N or N GB", n, quoteCut(c[4]))
	}
	pm := ovPriceRE().FindStringSubmatch(collapse(c[5]))
	if pm == nil {
		return row, fmt.Errorf("line %d: Pay-as-You-Go %s; want a price such as \"1.72 USD/hr\"", n, quoteCut(c[5]))
	}
	if row.Price, err = parsePrice("Pay-as-You-Go", pm[1], maxHourly); err != nil {
		return row, fmt.Errorf("line %d: %w", n, err)
	}
	return row, nil
}

// atoiMatch reads the number a pattern's first group captures.
func atoiMatch(re *regexp.Regexp, s string) (int, error) {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return 0, errors.New("no match")
	}
	return strconv.Atoi(m[1])
}
