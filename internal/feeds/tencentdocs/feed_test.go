package tencentdocs_test

import (
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/feeds/tencentdocs"
)

// The pages as the registry reads them (shared/data/price-sources), each
// cited by its own source id and dated by its data date (sources.yaml).
var files = tencentdocs.Files{
	List: tencentdocs.File{Path: "price-sources/tencent-qcloud-gpu-price-overview-cny.transcribed.csv",
		Source: "tencent-qcloud-gpu-prices@8ec07296", AsOf: "2021-01-01"},
	CVM: tencentdocs.File{Path: "price-sources/tencent-intl-cvm-price-linux_en.md",
		Source: "tencent-intl-cvm-prices@b7e17ea6", AsOf: "2020-05-22"},
	Overview: tencentdocs.File{Path: "price-sources/tencent-intl-gpu-price-overview_en.md",
		Source: "tencent-intl-gpu-prices@b7e17ea6", AsOf: "2020-07-21"},
}

// feed is the feed constructed directly (not through the registry).
func feed() *tencentdocs.Feed { return tencentdocs.New(files) }

// read reads the real pages (the test skips where shared/data is absent).
func read(t *testing.T) (*feeds.Result, feeds.Inputs) {
	t.Helper()
	in := feedstest.Inputs(t)
	res, err := feed().Read(in)
	if err != nil {
		t.Fatal(err)
	}
	return res, in
}
