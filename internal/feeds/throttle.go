package feeds

import (
	"context"
	"time"
)

// Throttle is how an importer waits out an API that throttles it (Alibaba's
// Throttling.*, Tencent's RequestLimitExceeded): a throttled request is
// sent again, Tries times in all (default DefaultTries, at most MaxTries),
// the wait doubling from Backoff (default 1 s) up to MaxBackoff. Sleep
// replaces the timer (tests make it instant); a cancelled context stops the
// waiting.
type Throttle struct {
	Tries   int
	Backoff time.Duration
	Sleep   func(time.Duration)
}

// Bounds of a Throttle.
const (
	DefaultTries = 5
	MaxTries     = 20
	MaxBackoff   = 16 * time.Second
)

// Retry calls send until it is not throttled (it returns throttled false),
// telling tell each wait. It returns the number of tries allowed, whether
// every one was throttled, and send's last error (or the context's).
func (t Throttle) Retry(ctx context.Context, send func() (throttled bool, err error), tell func(wait time.Duration)) (tries int, exhausted bool, err error) {
	tries = t.Tries
	if tries <= 0 {
		tries = DefaultTries
	}
	tries = min(tries, MaxTries)
	wait := t.Backoff
	if wait <= 0 {
		wait = time.Second
	}
	for try := 1; ; try++ {
		throttled, err := send()
		if !throttled {
			return tries, false, err
		}
		if try >= tries {
			return tries, true, err
		}
		if tell != nil {
			tell(wait)
		}
		if err := t.sleep(ctx, wait); err != nil {
			return tries, false, err
		}
		wait = min(2*wait, MaxBackoff)
	}
}

func (t Throttle) sleep(ctx context.Context, d time.Duration) error {
	if t.Sleep != nil {
		t.Sleep(d)
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}
