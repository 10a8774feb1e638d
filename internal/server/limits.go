package server

import (
	"math"
	"strconv"
	"sync"
	"time"
)

// limiter is a token bucket per key (a token's id, or a client address for
// open reads): rate per second, burst max(10, 2×rate) (newLimiter) or as
// given (newBucketLimiter).
type limiter struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	now     func() time.Time
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(rate float64, now func() time.Time) *limiter {
	return newBucketLimiter(rate, math.Max(10, 2*rate), now)
}

func newBucketLimiter(rate, burst float64, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: burst, now: now, buckets: map[string]*bucket{}}
}

// allow takes one request from key's bucket; when empty it returns false and
// how long until one is available.
func (l *limiter) allow(key string) (bool, time.Duration) {
	return l.take(key, true)
}

// check is allow without taking: whether key's bucket holds a request now,
// and if not, how long until it does.
func (l *limiter) check(key string) (bool, time.Duration) {
	return l.take(key, false)
}

func (l *limiter) take(key string, take bool) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.buckets[key]
	if b == nil {
		if !take {
			return true, 0 // a new bucket is full
		}
		if len(l.buckets) >= maxBuckets {
			l.evict(now)
		}
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	if now.After(b.at) { // a clock that steps back refills nothing
		b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
		b.at = now
	}
	if b.tokens >= 1 {
		if take {
			b.tokens--
		}
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// maxBuckets bounds the limiter's memory.
const maxBuckets = 100000

// evict forgets the buckets that have refilled (a full bucket and a new one
// are the same); only when none has does it forget them all.
func (l *limiter) evict(now time.Time) {
	full := time.Duration(l.burst / l.rate * float64(time.Second))
	for k, b := range l.buckets {
		if now.Sub(b.at) >= full {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) >= maxBuckets {
		clear(l.buckets)
	}
}

// retryAfter is the Retry-After header value: whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}
