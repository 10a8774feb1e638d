package spot

import (
	"strings"
	"testing"
)

// A trace is read strictly: a key given twice was taken last-wins (the
// second data list replaced the first), and what follows the object was
// ignored; both are refused with the field and the byte.
func TestParseTraceStrict(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"data twice": {`{"metadata": {"gap_seconds": 60}, "data": [1, 1], "data": [0, 0]}`, "field data at byte 50: given twice"},
		"gap twice":  {`{"metadata": {"gap_seconds": 60, "gap_seconds": 1}, "data": [1]}`, "field metadata.gap_seconds at byte 33: given twice"},
		"trailing":   {`{"metadata": {"gap_seconds": 60}, "data": [1]} {"data": [0]}`, "at byte 47: data after the JSON value"},
		"huge price": {`{"metadata": {"gap_seconds": 60}, "data": [1], "prices": [1e300]}`, "field prices[0] at byte 58: number 1e300 is outside the allowed range"},
	} {
		_, err := ParseTrace(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "trace: ") {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	if _, err := ParseTrace(strings.NewReader("{\"metadata\": {\"gap_seconds\": 60}, \"data\": [1]}\n")); err != nil {
		t.Errorf("a trace with a final newline: %v", err)
	}
}
