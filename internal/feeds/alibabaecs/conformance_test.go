package alibabaecs_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/alibabaecs"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
)

// fixtures reads the documented answers in testdata as a feeds.Source,
// so that the conformance suite checks what Parse yields.
type fixtures struct{ files map[string]string } // file -> format

func (fixtures) ID() string { return "alibabaecs-fixtures" }
func (f fixtures) Describe() feeds.Description {
	d := feeds.Description{Title: "Alibaba Cloud ECS API documentation's answers", Yields: "offerings, subscriptions"}
	for _, name := range []string{"describeprice-ecs-docs.json", "describeprice-api-reference.json", "spothistory-ecs-docs.json"} {
		d.Reads = append(d.Reads, feeds.Input{Root: feeds.Shared, Path: name})
	}
	return d
}
func (f fixtures) Read(in feeds.Inputs) (*feeds.Result, error) {
	all := &feeds.Result{}
	for _, r := range f.Describe().Reads {
		fsys, err := in.FS(r.Root)
		if err != nil {
			return nil, err
		}
		fh, err := fsys.Open(r.Path)
		if err != nil {
			return nil, err
		}
		res, err := alibabaecs.New().Parse(f.files[r.Path], fh, feeds.ParseOptions{Source: "alibaba-ecs-docs", AsOf: "2020-06-01", Origin: r.Path})
		fh.Close()
		if err != nil {
			return nil, err
		}
		all.Offerings = append(all.Offerings, res.Offerings...)
		all.Commitments = append(all.Commitments, res.Commitments...)
		all.LeftOut = append(all.LeftOut, res.LeftOut...)
	}
	return all, nil
}

func TestConformance(t *testing.T) {
	f := fixtures{files: map[string]string{
		"describeprice-ecs-docs.json":      alibabaecs.FormatDescribePrice,
		"describeprice-api-reference.json": alibabaecs.FormatDescribePrice,
		"spothistory-ecs-docs.json":        alibabaecs.FormatSpotHistory,
	}}
	rows := map[string]int{}
	for name, format := range f.files {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if format == alibabaecs.FormatDescribePrice {
			var list []json.RawMessage
			if err := json.Unmarshal(b, &list); err != nil {
				t.Fatal(err)
			}
			rows[name] = len(list) // one exchange, one row
			continue
		}
		var spot struct {
			SpotPrices struct{ SpotPriceType []json.RawMessage }
		}
		if err := json.Unmarshal(b, &spot); err != nil {
			t.Fatal(err)
		}
		rows[name] = len(spot.SpotPrices.SpotPriceType)
	}
	if fmt.Sprint(rows) != "map[describeprice-api-reference.json:1 describeprice-ecs-docs.json:1 spothistory-ecs-docs.json:2]" {
		t.Fatalf("rows %v", rows)
	}
	feedstest.RunWith(t, f, feeds.Inputs{Shared: os.DirFS("testdata")}, feedstest.Want{Rows: rows})
}
