package cuda

import (
	"testing"

	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

// BenchmarkCallOverhead measures what a call costs gpuscout itself, against
// the fake driver (whose memset of 16 words is nearly free): handed to the
// device's thread from another goroutine, and made inside a timed region on
// that thread.
func BenchmarkCallOverhead(b *testing.B) {
	env := dltest.Env(dltest.Build(b, "testdata/fakecuda.c", "libcuda.so.1"))
	devs, err := Open(Options{Env: &env, NoNVML: true})
	if err != nil {
		b.Fatal(err)
	}
	d := devs[0].(*Device)
	defer d.Close()
	p, err := d.Alloc(64)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("handoff", func(b *testing.B) {
		for range b.N {
			if err := d.Fill32(p, 1, 16); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("in-region", func(b *testing.B) {
		_, err := d.Time(func() error {
			for range b.N {
				if err := d.Fill32(p, 1, 16); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	})
}
