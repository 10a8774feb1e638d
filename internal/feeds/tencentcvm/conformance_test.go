package tencentcvm_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/feeds/tencentcvm"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

const sharedExamples = "price-feeds/tencent-cvm-price-api-examples.json"

// TestConformanceShared runs the suite on the recorded examples: the one
// DescribeZoneInstanceConfigInfos row is a non-GPU type and the
// InquiryPriceRunInstances answers were recorded without their requests,
// so every row is left out with its reason.
func TestConformanceShared(t *testing.T) {
	var ex struct {
		Inquiry []json.RawMessage `json:"InquiryPriceRunInstances"`
		Zone    []struct {
			Output struct {
				Response struct{ InstanceTypeQuotaSet []json.RawMessage }
			} `json:"output"`
		} `json:"DescribeZoneInstanceConfigInfos"`
	}
	if err := json.NewDecoder(shareddata.Open(t, sharedExamples)).Decode(&ex); err != nil {
		t.Fatal(err)
	}
	rows := len(ex.Inquiry)
	for _, z := range ex.Zone {
		rows += len(z.Output.Response.InstanceTypeQuotaSet)
	}
	src := tencentcvm.NewFeed("tencent-cli-examples@2025-09-23", "2025-09-23", tencentcvm.File{Path: sharedExamples, Format: tencentcvm.FormatExamples})
	feedstest.Run(t, src, feedstest.Want{Rows: map[string]int{sharedExamples: rows},
		Empty: "the recorded examples price one non-GPU type (S2.SMALL1) and record no InquiryPriceRunInstances request"})
}

// TestConformanceFixtures runs the suite on the package's own fixtures.
// Rows count once per record: a SPOTPAID row of a zone and type with a
// POSTPAID_BY_HOUR row gives that offering's spot price (the synthetic
// answer has one such row, GT4.41XLARGE948 in ap-guangzhou-3).
func TestConformanceFixtures(t *testing.T) {
	var zone struct {
		Response struct{ InstanceTypeQuotaSet []json.RawMessage }
	}
	raw, err := os.ReadFile("testdata/zoneconfig-gpu-synthetic.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &zone); err != nil {
		t.Fatal(err)
	}
	var inq []json.RawMessage
	if raw, err = os.ReadFile("testdata/inquiry-documented.json"); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &inq); err != nil {
		t.Fatal(err)
	}
	src := tencentcvm.NewFeed("fixture@2026-11-30", "2026-11-30",
		tencentcvm.File{Path: "zoneconfig-gpu-synthetic.json", Format: tencentcvm.FormatZoneConfig},
		tencentcvm.File{Path: "inquiry-documented.json", Format: tencentcvm.FormatInquiry})
	const mergedSpotRows = 1
	feedstest.RunWith(t, src, feeds.Inputs{Shared: os.DirFS("testdata")}, feedstest.Want{Rows: map[string]int{
		"zoneconfig-gpu-synthetic.json": len(zone.Response.InstanceTypeQuotaSet) - mergedSpotRows,
		"inquiry-documented.json":       len(inq),
	}})
}
