// Command gpuscout chooses, prices, verifies and runs GPU cloud capacity.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/gpuscout/gpuscout/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
