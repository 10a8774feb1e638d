package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/money"
)

// An offering whose GPU memory no source gives (a price file's row, say)
// writes null, never 0; a known one its figure.
func TestRowsJSONUnknownMemoryIsNull(t *testing.T) {
	g := &GPU{Name: "X"}
	rows := []Row{{Offering: &Offering{Provider: "aws", InstanceType: "x.large", GPU: g, GPUCount: 1}},
		{Offering: &Offering{Provider: "aws", InstanceType: "y.large", GPU: g, GPUCount: 1, GPUMemoryGiB: 24}}}
	b, err := json.Marshal(RowsJSON(rows, money.USD))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"gpu_memory_gib":null`) || !strings.Contains(s, `"gpu_memory_gib":24`) {
		t.Errorf("%s", s)
	}
}
