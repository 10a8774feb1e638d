package feeds

import (
	"errors"
	"strings"
	"testing"
)

func TestLimitBody(t *testing.T) {
	for _, tc := range []struct {
		size, max int
		tooLarge  bool
	}{{10, 10, false}, {11, 10, true}, {0, 10, false}, {100000, 99999, true}} {
		b, err := ReadBody(strings.NewReader(strings.Repeat("x", tc.size)), int64(tc.max))
		var tl *TooLargeError
		if errors.As(err, &tl) != tc.tooLarge {
			t.Errorf("size %d max %d: err %v, want too large %v", tc.size, tc.max, err, tc.tooLarge)
		}
		if !tc.tooLarge && len(b) != tc.size {
			t.Errorf("size %d: read %d", tc.size, len(b))
		}
		if tc.tooLarge && len(b) > tc.max {
			t.Errorf("size %d max %d: returned %d bytes, more than the limit", tc.size, tc.max, len(b))
		}
	}
}
