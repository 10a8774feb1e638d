// Package awsondemand reads the AWS on-demand price table extracted from
// Karpenter's generated price maps (shared/data/aws-ondemand): one row per
// region and instance type, Linux, shared tenancy, from the AWS Price List API.
package awsondemand

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Record is one price row.
type Record struct {
	Line         int
	Region       string
	InstanceType string
	Price        decimal.Decimal
	Currency     string
	GeneratedAt  time.Time
}

var header = []string{"region", "instance_type", "ondemand_price_per_hour", "currency", "generated_at"}

// Parse reads the CSV; the header must be exactly the documented one.
func Parse(r io.Reader) ([]Record, error) {
	cr := csv.NewReader(r)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("awsondemand: header: %w", err)
	}
	if strings.Join(head, ",") != strings.Join(header, ",") {
		return nil, fmt.Errorf("awsondemand: header %q, want %q", strings.Join(head, ","), strings.Join(header, ","))
	}
	var out []Record
	line := 1
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		line++
		if err != nil {
			return nil, fmt.Errorf("awsondemand: line %d: %w", line, err)
		}
		p, err := money.ParseDecimal(rec[2])
		if err != nil || !p.IsPositive() {
			return nil, fmt.Errorf("awsondemand: line %d: price %q is not a positive number", line, rec[2])
		}
		t, err := time.Parse(time.RFC3339, rec[4])
		if err != nil {
			return nil, fmt.Errorf("awsondemand: line %d: generated_at %q is not RFC 3339", line, rec[4])
		}
		if rec[0] == "" || rec[1] == "" || len(rec[3]) != 3 {
			return nil, fmt.Errorf("awsondemand: line %d: region, instance_type and a 3-letter currency are required", line)
		}
		out = append(out, Record{Line: line, Region: rec[0], InstanceType: rec[1], Price: p, Currency: rec[3], GeneratedAt: t})
	}
}
