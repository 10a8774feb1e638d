package tencentcvm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/tencentcvm"
)

// TestParseNeedsADate: the CVM API's answers say nothing of when they were
// given, so a file of them without an as-of date imports nothing and says
// why (feeds.ErrNoDate), in both formats.
func TestParseNeedsADate(t *testing.T) {
	for _, format := range []string{tencentcvm.FormatZoneConfig, tencentcvm.FormatInquiry} {
		_, err := tencentcvm.New().Parse(format, strings.NewReader(`{}`), feeds.ParseOptions{Source: "file:z.json", Origin: "z.json"})
		if !errors.Is(err, feeds.ErrNoDate) {
			t.Errorf("%s without an as-of date: err %v, want feeds.ErrNoDate", format, err)
		}
	}
}
