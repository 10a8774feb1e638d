package alibabaecs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/catalog/build"
	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/alibabaecs"
	"github.com/gpuscout/gpuscout/internal/feeds/curated"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// source is a fixed feeds.Source.
type source struct {
	id  string
	res *feeds.Result
}

func (s source) ID() string { return s.id }
func (s source) Describe() feeds.Description {
	return feeds.Description{Title: s.id, Reads: []feeds.Input{{Root: feeds.Shared, Path: "(test)"}}, Yields: "records"}
}
func (s source) Read(feeds.Inputs) (*feeds.Result, error) { return s.res, nil }

// The importer's records build into catalog offerings the way the user
// catalog builds them: price rows joined with the curated specs; the
// per-zone offerings (spot, with the region's pay-as-you-go price) kept and
// the region-wide price cross-checked against them; subscriptions attached.
func TestRecordsBuild(t *testing.T) {
	in := `[` + strings.Join([]string{
		`{"Request":{"RegionId":"cn-hangzhou","InstanceType":"ecs.gn7-c13g1.26xlarge","PriceUnit":"Hour"},"Response":{"PriceInfo":{"Price":{"Currency":"CNY","TradePrice":3712.8}}}}`,
		`{"Request":{"RegionId":"cn-hangzhou","InstanceType":"ecs.gn7-c13g1.26xlarge","SpotStrategy":"SpotAsPriceGo","ZoneId":"cn-hangzhou-i"},"Response":{"PriceInfo":{"Price":{"Currency":"CNY","TradePrice":655.2}}}}`,
		`{"Request":{"RegionId":"cn-hangzhou","InstanceType":"ecs.gn7-c13g1.26xlarge","PriceUnit":"Year","Period":1},"Response":{"PriceInfo":{"Price":{"Currency":"CNY","TradePrice":4368}}}}`,
		`{"Request":{"RegionId":"cn-beijing","InstanceType":"ecs.gn7i-c8g1.2xlarge"},"Response":{"PriceInfo":{"Price":{"Currency":"CNY","TradePrice":100}}}}`,
	}, ",") + `]`
	res, err := alibabaecs.New().Parse(alibabaecs.FormatDescribePrice, strings.NewReader(in), feeds.ParseOptions{Source: "alibaba-ecs-api@2026-12-01", AsOf: "2026-12-01", Origin: "prices.json"})
	if err != nil {
		t.Fatal(err)
	}
	specs, err := catalog.ParseSpecs(catalog.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	specs.AddSource(catalog.Source{ID: "alibaba-ecs-api@2026-12-01", Title: "test", AsOf: "2026-12-01"})
	cur, err := curated.New("alibaba.yaml").Read(feeds.Inputs{Curated: os.DirFS(filepath.Join(shareddata.ModuleRoot(t), "data", "curated"))})
	if err != nil {
		t.Fatal(err)
	}
	snap, rep, err := build.BuildFrom(specs, []feeds.Source{source{"specs", &feeds.Result{Specs: cur.Specs}}, source{"alibaba", res}}, feeds.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range snap.Offerings {
		got = append(got, o.InstanceType+" "+o.Region+"/"+o.Zone+" "+o.GPU.Name+" od "+o.OnDemand.Value.String()+" "+string(o.OnDemand.Currency)+" spot "+o.Spot.Value.String())
	}
	want := []string{
		"ecs.gn7-c13g1.26xlarge cn-hangzhou/cn-hangzhou-i A100-40GB od 3712.8 CNY spot 655.2",
		"ecs.gn7i-c8g1.2xlarge cn-beijing/ A10 od 100 CNY spot 0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("offerings\n%s\nwant\n%s\nreport %+v", strings.Join(got, "\n"), strings.Join(want, "\n"), rep)
	}
	if len(rep.Checks) != 1 || !strings.Contains(rep.Checks[0], "equals") {
		t.Errorf("checks %v, want the region-wide price cross-checked against the zone's", rep.Checks)
	}
	if len(snap.Commitments) != 1 || snap.Commitments[0].Term != "1y" || snap.Commitments[0].Upfront.String() != "4368" {
		t.Errorf("commitments %+v", snap.Commitments)
	}
}
