package feeds

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// TestThrottle: waits double from the backoff up to MaxBackoff; after Tries
// throttled sends it stops, exhausted; an answer that is not throttled ends
// it at once; a context cancelled while waiting ends it with its error.
func TestThrottle(t *testing.T) {
	var waits []time.Duration
	th := Throttle{Tries: 7, Sleep: func(d time.Duration) { waits = append(waits, d) }}
	busy := errors.New("throttled")
	sends := 0
	tries, exhausted, err := th.Retry(context.Background(), func() (bool, error) { sends++; return true, busy }, nil)
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 16 * time.Second}
	if tries != 7 || !exhausted || err != busy || sends != 7 || !slices.Equal(waits, want) {
		t.Errorf("always throttled: tries %d exhausted %v err %v sends %d waits %v; want 7, true, throttled, 7, %v", tries, exhausted, err, sends, waits, want)
	}
	sends, waits = 0, nil
	_, exhausted, err = th.Retry(context.Background(), func() (bool, error) {
		sends++
		return sends < 3, nil
	}, nil)
	if exhausted || err != nil || sends != 3 || len(waits) != 2 {
		t.Errorf("answered on the third: exhausted %v err %v sends %d waits %v", exhausted, err, sends, waits)
	}
	if tries, _, _ := (Throttle{Tries: 100, Sleep: func(time.Duration) {}}).Retry(context.Background(), func() (bool, error) { return true, busy }, nil); tries != MaxTries {
		t.Errorf("Tries 100: %d tries, want at most %d", tries, MaxTries)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, exhausted, err = (Throttle{Sleep: func(time.Duration) { cancel() }}).Retry(ctx, func() (bool, error) { return true, busy }, nil)
	if exhausted || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while waiting: exhausted %v err %v; want the context's error", exhausted, err)
	}
}
