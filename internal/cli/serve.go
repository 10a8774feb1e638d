package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/server"
	"github.com/gpuscout/gpuscout/internal/server/dashboard"
	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/postgres"
	"github.com/gpuscout/gpuscout/internal/store/sqlite"
)

// defaultDB is where serve and token keep their data without --db.
const defaultDB = "./gpuscout.db"

type serveFlags struct {
	catalogFlags
	db            string
	listen        string
	readOpen      bool
	maxBody       int64
	rate          float64
	rateExpensive float64
	authFailures  int
	maxConns      int
	metricsToken  bool
	grace         time.Duration
	cache         time.Duration
	keys          string
}

// dbHelp is --db's help, serve's and token's.
var dbHelp = "the store: " + store.DSNRule

func newServeCmd(e *env) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the team server: report store, HTTP API (/api/v1) and dashboard",
		Long: `Run the team server. It keeps benchmark reports, plans and agent summaries
uploaded with --upload (bench, advise, agent), answers the JSON API under /api/v1
(docs/openapi.yaml) and shows the dashboard at /. Writes need a token made with
'gpuscout token create'; reads need one unless --read-open: the API takes it as
'Authorization: Bearer TOKEN', and a browser signs in to the dashboard with any
user name and the token as the password ('gpuscout token create --name team
--scope read' makes one). Answers that need a token are sent Cache-Control:
no-store. SIGTERM or SIGINT stops it after requests in flight finish.

--db is a PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DB?sslmode=...), a
PostgreSQL key=value connection string whose first word is a libpq keyword
(host=db.internal dbname=gpuscout user=gpuscout, with PG* environment variables
and ~/.pgpass read as psql reads them), or else a SQLite file path. The log names
the store as USER@HOST:PORT/DB, never with its password.

Limits: --rate requests a second per token (or per client address for open
reads), --rate-expensive for POST /api/v1/advise and /api/v1/cost (they compute
over the whole catalog), both answering 429 with Retry-After; --max-auth-failures
failed sign-ins a minute per client address, then 429 with Retry-After for that
address's requests with credentials (behind a reverse proxy every client has the
proxy's address); --max-body bytes a request, refused with 413 from its
Content-Length before the body is read; --max-conns connections open at once
(more wait until one closes). A token made with 'token create --expires' gets 401
saying so once it expires.

Operations: /healthz answers 200 when the store answers a read and commits a
test write (a row of its health table, at most every 5 s); else it answers
503 with the reason: the database locked by another process, read-only, full
or down. An upload that meets a lock held elsewhere answers 503 with
Retry-After after the busy timeout (5 s) rather than wait. /metrics
(Prometheus: requests and latency by route, Go and process figures) is open
to anyone who can reach the port unless --metrics-token, which makes it need
a token of any scope (Bearer).`,
		Example: "  gpuscout serve\n  gpuscout serve --db postgres://user@host/gpuscout --listen :8080 --read-open\n  gpuscout serve --db 'host=db.internal dbname=gpuscout user=gpuscout' --metrics-token",
		Args:    cobra.NoArgs,
	}
	f.catalogFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", defaultDB, dbHelp)
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8080", "address to listen on, HOST:PORT")
	fl.BoolVar(&f.readOpen, "read-open", false, "let reads through without a token (writes always need one)")
	fl.Int64Var(&f.maxBody, "max-body", server.DefaultMaxBody, "largest request body in bytes (1024 to 1073741824); more gets 413")
	fl.Float64Var(&f.rate, "rate", server.DefaultRatePerToken, "requests per second one token may make (bursts of twice that, at least 10); more gets 429")
	fl.Float64Var(&f.rateExpensive, "rate-expensive", server.DefaultExpensiveRate, "advise and cost API calls per second one token may make, a limit of their own (bursts of twice that, at least 10); more gets 429")
	fl.IntVar(&f.authFailures, "max-auth-failures", server.DefaultAuthFailures, "failed sign-ins (wrong, revoked or malformed tokens) a minute one client address may make (1 to 100000); then its requests with credentials get 429")
	fl.IntVar(&f.maxConns, "max-conns", server.DefaultMaxConns, fmt.Sprintf("connections open at once (1 to %d); more wait until one closes", server.MaxMaxConns))
	fl.BoolVar(&f.metricsToken, "metrics-token", false, "make /metrics need a token of any scope (Bearer); without it /metrics is open to anyone who can reach the port")
	fl.StringVar(&f.keys, "node-keys", "", "file of node HMAC keys, one \"KEY-ID HEX-KEY\" a line: uploads signed with one are verified (401 when the signature is wrong)")
	fl.DurationVar(&f.grace, "grace", 30*time.Second, "how long shutdown waits for requests in flight (1s to 10m)")
	fl.DurationVar(&f.cache, "page-cache", dashboard.DefaultCacheTTL, "how long a dashboard page built from the store is served from cache (0 to 1h; 0: off); this server's uploads show at once, other replicas' within it")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if f.maxBody < 1024 || f.maxBody > server.MaxMaxBody {
			return usagef("--max-body %d: want 1024 to %d bytes", f.maxBody, int64(server.MaxMaxBody))
		}
		if !(f.rate > 0 && f.rate <= server.MaxRate) {
			return usagef("--rate %v: want more than 0 and at most 1000000 requests per second", f.rate)
		}
		if !(f.rateExpensive > 0 && f.rateExpensive <= server.MaxRate) {
			return usagef("--rate-expensive %v: want more than 0 and at most 1000000 requests per second", f.rateExpensive)
		}
		if f.authFailures < 1 || f.authFailures > server.MaxAuthFailures {
			return usagef("--max-auth-failures %d: want 1 to %d a minute", f.authFailures, server.MaxAuthFailures)
		}
		if f.maxConns < 1 || f.maxConns > server.MaxMaxConns {
			return usagef("--max-conns %d: want 1 to %d", f.maxConns, server.MaxMaxConns)
		}
		if f.grace < time.Second || f.grace > 10*time.Minute {
			return usagef("--grace %v: want 1s to 10m", f.grace)
		}
		if f.cache < 0 || f.cache > dashboard.MaxCacheTTL {
			return usagef("--page-cache %v: want 0 (off) to %v", f.cache, dashboard.MaxCacheTTL)
		}
		cacheTTL := f.cache
		if cacheTTL == 0 {
			cacheTTL = -1 // the dashboard's "off"
		}
		_, port, err := net.SplitHostPort(f.listen)
		if err == nil {
			_, err = net.LookupPort("tcp", port) // 0 to 65535, or a service name
		}
		if err != nil {
			return usagef("--listen %q: want HOST:PORT with a port from 0 to 65535, e.g. 127.0.0.1:8080 or :8080", f.listen)
		}
		var keys map[string][]byte
		if f.keys != "" {
			b, err := os.ReadFile(f.keys)
			if err != nil {
				return usagef("--node-keys %s: %v", f.keys, err)
			}
			if keys, err = server.ParseKeys(f.keys, bytes.NewReader(b)); err != nil {
				return usagef("--node-keys %v", err)
			}
		}
		l, err := f.load()
		if err != nil {
			return err
		}
		st, where, err := openStore(cmd.Context(), f.db, false)
		if err != nil {
			return err
		}
		defer st.Close()
		logs := server.NewLogBuffer(e.stderr, 200*time.Millisecond)
		defer logs.Close()
		log := slog.New(slog.NewJSONHandler(logs, nil))
		srv, err := server.New(server.Config{Store: st, Catalog: l.cat, FX: l.fx, Keys: keys, ReadOpen: f.readOpen, MaxBody: f.maxBody, RatePerToken: f.rate,
			ExpensiveRate: f.rateExpensive, AuthFailures: f.authFailures, MetricsToken: f.metricsToken,
			Logger: log, Now: e.now, Dashboard: dashboard.New(dashboard.Config{Store: st, Catalog: l.cat, Now: e.now, Logger: log, CacheTTL: cacheTTL})})
		if err != nil {
			return err
		}
		ln, err := net.Listen("tcp", f.listen)
		if err != nil {
			return fmt.Errorf("--listen %s: %w", f.listen, err)
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
		defer stop()
		log.Info("serving", "addr", ln.Addr().String(), "db", where, "read_open", f.readOpen, "max_conns", f.maxConns, "metrics_token", f.metricsToken)
		err = server.Serve(ctx, server.LimitListener(ln, f.maxConns), srv, f.grace)
		log.Info("stopped", "err", errString(err))
		return err
	}
	return cmd
}

// openStore opens --db (store.ParseDSN: a PostgreSQL URL or key=value
// connection string, or a SQLite file path) and says where it is in words
// safe to log: no password. A --db that cannot be parsed is a usage error.
// openStore opens the store --db names. A SQLite path that is a folder is a
// usage error; so is one that does not exist when mustExist (token list and
// revoke read a store, they do not create one).
func openStore(ctx context.Context, db string, mustExist bool) (store.Store, string, error) {
	dsn, err := store.ParseDSN(db)
	if err != nil {
		return nil, "", usagef("--db: %v", err)
	}
	if dsn.Backend != store.Postgres {
		st, serr := os.Stat(dsn.Path)
		switch {
		case serr == nil && st.IsDir():
			return nil, "", usagef("--db %s: is a folder; want a SQLite file (or a PostgreSQL URL or key=value string)", dsn.Path)
		case errors.Is(serr, fs.ErrNotExist) && mustExist:
			return nil, "", usagef("--db %s: no store there; 'gpuscout token create' or 'gpuscout serve' creates one", dsn.Path)
		}
	}
	var st store.Store
	switch dsn.Backend {
	case store.Postgres:
		st, err = postgres.Open(ctx, dsn.ConnString())
	default:
		st, err = sqlite.Open(dsn.Path)
	}
	if err != nil {
		return nil, "", fmt.Errorf("--db %s: %w", dsn, err)
	}
	return st, dsn.String(), nil
}

func errString(err error) string {
	if err == nil || errors.Is(err, context.Canceled) {
		return ""
	}
	return err.Error()
}
