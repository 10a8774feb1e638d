package tencentdocs

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/shopspring/decimal"
)

// ListRow is one row of the China site's GPU price overview (价格总览): an
// instance type's 包年包月 price per month and pay-as-you-go price per
// hour, in CNY, for mainland China. Where the page writes a range ("4671 -
// 5190": the price differs by region, and the page does not say which
// region pays which) Low < High; otherwise Low == High.
type ListRow struct {
	Line         int
	InstanceType string
	GPU          string  // as written: "A100-40G x1", "T4 1/4"
	GPUModel     string  // "A100-40G", "T4"
	GPUCount     float64 // 1, 0.25
	MonthlyLow   decimal.Decimal
	MonthlyHigh  decimal.Decimal
	HourlyLow    decimal.Decimal
	HourlyHigh   decimal.Decimal
}

// listHeader is the transcription's header, exactly.
var listHeader = []string{"instance_type", "gpu", "monthly_cny_low", "monthly_cny_high", "hourly_cny_low", "hourly_cny_high"}

// listGPURE is the gpu column: a model, then "xN" GPUs or a fraction "N/M" of one.
var listGPURE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S+) (?:x([1-9][0-9]?)|([1-9])/([1-9]))$`) })

// ParseList reads the transcription of the China site's GPU price overview
// (tencent-qcloud-gpu-price-overview-cny.transcribed.csv): the header
// above, then one row per instance type, each price a plain decimal above
// 0, low at most high. An error names the line, the column and the value.
func ParseList(r io.Reader) ([]ListRow, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("the file is larger than %d MiB: not a price list", maxFileBytes>>20)
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1 // the header is checked whole, then every row has its width
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("line 1: the file is empty; want the header " + strings.Join(listHeader, ","))
		}
		return nil, fmt.Errorf("header: %w", err)
	}
	if strings.Join(head, ",") != strings.Join(listHeader, ",") {
		return nil, fmt.Errorf("line 1: header %s; want %s", quoteCut(strings.Join(head, ",")), strings.Join(listHeader, ","))
	}
	cr.FieldsPerRecord = len(listHeader)
	var out []ListRow
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err // csv's errors name the line
		}
		line, _ := cr.FieldPos(0)
		row, err := listRow(line, rec)
		if err != nil {
			return nil, err
		}
		if first, ok := seen[row.InstanceType]; ok {
			return nil, fmt.Errorf("line %d: instance_type %q is listed twice (first on line %d)", line, row.InstanceType, first)
		}
		seen[row.InstanceType] = line
		out = append(out, row)
	}
	if len(out) == 0 {
		return nil, errors.New("the file has a header and no rows: truncated?")
	}
	return out, nil
}

// listRow checks and reads one record.
func listRow(line int, rec []string) (ListRow, error) {
	row := ListRow{Line: line, InstanceType: rec[0], GPU: rec[1]}
	if !instanceTypeRE().MatchString(rec[0]) {
		return row, fmt.Errorf("line %d: instance_type %s is not an instance type; want FAMILY.SIZE such as GN10Xp.2XLARGE40", line, quoteCut(rec[0]))
	}
	m := listGPURE().FindStringSubmatch(rec[1])
	if m == nil {
		return row, fmt.Errorf("line %d: gpu %s; want a model and a count, \"T4 x2\", or a fraction of one GPU, \"T4 1/4\"", line, quoteCut(rec[1]))
	}
	row.GPUModel = m[1]
	var ok bool
	if row.GPUCount, ok = gpuCount(m[2], m[3], m[4]); !ok {
		return row, fmt.Errorf("line %d: gpu %s: a fraction of one GPU is below 1", line, quoteCut(rec[1]))
	}
	var err error
	for i, p := range []struct {
		dst   *decimal.Decimal
		limit int64
	}{{&row.MonthlyLow, maxMonthly}, {&row.MonthlyHigh, maxMonthly}, {&row.HourlyLow, maxHourly}, {&row.HourlyHigh, maxHourly}} {
		col := listHeader[2+i]
		if *p.dst, err = parsePrice(col, rec[2+i], p.limit); err != nil {
			return row, fmt.Errorf("line %d: %w", line, err)
		}
	}
	if row.MonthlyLow.GreaterThan(row.MonthlyHigh) {
		return row, fmt.Errorf("line %d: monthly_cny_low %s is above monthly_cny_high %s; want low <= high", line, rec[2], rec[3])
	}
	if row.HourlyLow.GreaterThan(row.HourlyHigh) {
		return row, fmt.Errorf("line %d: hourly_cny_low %s is above hourly_cny_high %s; want low <= high", line, rec[4], rec[5])
	}
	return row, nil
}
