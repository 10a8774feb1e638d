package agent

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// Runner is a part of the agent that works in the background (a notifier's
// dispatcher, an uploader) until the agent stops.
type Runner interface {
	Run(ctx context.Context)
}

// Serve runs the agent until ctx ends or its endpoint fails: h served on
// ln, the loop sampling, and each runner in its own goroutine. It returns
// when all of them have stopped, after shutting the endpoint down (at most
// 5 s for scrapes in flight); nil after a clean stop.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, loop *Loop, runners ...Runner) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	var wg sync.WaitGroup
	for _, r := range runners {
		wg.Go(func() { r.Run(ctx) })
	}
	wg.Go(func() { _ = loop.Run(ctx) })
	var err error
	select {
	case <-ctx.Done():
	case err = <-serveErr:
		cancel()
	}
	wg.Wait()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	if serr := srv.Shutdown(sctx); serr != nil && err == nil {
		err = serr
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
