// Command floor is a hello-world that links the libraries gpuscout's design
// puts in its one binary: purego (the GPU libraries, which makes the binary
// dynamically linked), the Prometheus client (the agent's exporter), the
// SQLite and PostgreSQL drivers (the server's stores), cobra, decimal and
// YAML. Their package initialisation runs before any main, so no command of
// a binary that links them starts faster than this: make bench prints its
// time beside gpuscout's (issue 24's start-up targets).
package main

import (
	"os"

	_ "github.com/ebitengine/purego"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/shopspring/decimal"
	_ "github.com/spf13/cobra"
	_ "go.yaml.in/yaml/v3"
	_ "modernc.org/sqlite"
)

func main() { os.Stdout.WriteString("hi\n") }
