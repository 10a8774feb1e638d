package feeds

import (
	"fmt"
	"io"
)

// DefaultMaxBody is the most bytes read of one API response where the
// caller sets no limit (FetchRequest.MaxBody 0): far above any page of the
// providers' price APIs, far below memory trouble.
const DefaultMaxBody = 64 << 20

// LimitBody returns a reader of r that fails with a *TooLargeError once
// more than max bytes were read (max <= 0: DefaultMaxBody), instead of
// silently truncating the body as io.LimitReader does.
func LimitBody(r io.Reader, max int64) io.Reader {
	if max <= 0 {
		max = DefaultMaxBody
	}
	return &limited{r: r, left: max, max: max}
}

// ReadBody reads all of r, at most max bytes (see LimitBody).
func ReadBody(r io.Reader, max int64) ([]byte, error) {
	return io.ReadAll(LimitBody(r, max))
}

// TooLargeError says a response body was over the limit.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("response body larger than %d bytes (the limit)", e.Max)
}

type limited struct {
	r         io.Reader
	left, max int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, &TooLargeError{l.max}
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1] // one byte more than allowed tells "over" from "exactly at"
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n + int(l.left), &TooLargeError{l.max}
	}
	return n, err
}
