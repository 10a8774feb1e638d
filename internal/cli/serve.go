package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
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
	db       string
	listen   string
	readOpen bool
	maxBody  int64
	rate     float64
	grace    time.Duration
	cache    time.Duration
	keys     string
}

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
--scope read' makes one). /healthz and /metrics are for operations. SIGTERM or SIGINT stops it after requests in flight finish.`,
		Example: "  gpuscout serve\n  gpuscout serve --db postgres://user@host/gpuscout --listen :8080 --read-open",
		Args:    cobra.NoArgs,
	}
	f.catalogFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", defaultDB, "the store: a SQLite file path, or a postgres:// URL")
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8080", "address to listen on, HOST:PORT")
	fl.BoolVar(&f.readOpen, "read-open", false, "let reads through without a token (writes always need one)")
	fl.Int64Var(&f.maxBody, "max-body", server.DefaultMaxBody, "largest request body in bytes (1024 to 1073741824); more gets 413")
	fl.Float64Var(&f.rate, "rate", server.DefaultRatePerToken, "requests per second one token may make (bursts of twice that); more gets 429")
	fl.StringVar(&f.keys, "node-keys", "", "file of node HMAC keys, one \"KEY-ID HEX-KEY\" a line: uploads signed with one are verified (401 when the signature is wrong)")
	fl.DurationVar(&f.grace, "grace", 30*time.Second, "how long shutdown waits for requests in flight (1s to 10m)")
	fl.DurationVar(&f.cache, "page-cache", dashboard.DefaultCacheTTL, "how long a dashboard page built from the store is served from cache (0 to 1h; 0: off); this server's uploads show at once, other replicas' within it")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if f.maxBody < 1024 || f.maxBody > server.MaxMaxBody {
			return usagef("--max-body %d: want 1024 to %d bytes", f.maxBody, int64(server.MaxMaxBody))
		}
		if !(f.rate > 0 && f.rate <= 1e6) {
			return usagef("--rate %v: want more than 0 and at most 1000000 requests per second", f.rate)
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
		if _, _, err := net.SplitHostPort(f.listen); err != nil {
			return usagef("--listen %q: want HOST:PORT, e.g. 127.0.0.1:8080 or :8080", f.listen)
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
		st, err := openStore(cmd.Context(), f.db)
		if err != nil {
			return err
		}
		defer st.Close()
		logs := server.NewLogBuffer(e.stderr, 200*time.Millisecond)
		defer logs.Close()
		log := slog.New(slog.NewJSONHandler(logs, nil))
		srv, err := server.New(server.Config{Store: st, Catalog: l.cat, FX: l.fx, Keys: keys, ReadOpen: f.readOpen, MaxBody: f.maxBody, RatePerToken: f.rate,
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
		log.Info("serving", "addr", ln.Addr().String(), "db", redactDB(f.db), "read_open", f.readOpen)
		err = server.Serve(ctx, ln, srv, f.grace)
		log.Info("stopped", "err", errString(err))
		return err
	}
	return cmd
}

// openStore opens --db: a postgres:// URL or a SQLite file path.
func openStore(ctx context.Context, db string) (store.Store, error) {
	switch {
	case db == "":
		return nil, usagef("--db: empty; give a SQLite file path or a postgres:// URL")
	case strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://"):
		st, err := postgres.Open(ctx, db)
		if err != nil {
			return nil, fmt.Errorf("--db %s: %w", redactDB(db), err)
		}
		return st, nil
	}
	st, err := sqlite.Open(db)
	if err != nil {
		return nil, fmt.Errorf("--db %s: %w", db, err)
	}
	return st, nil
}

// redactDB hides a password in a database URL for logs and errors.
func redactDB(db string) string {
	if i := strings.Index(db, "://"); i >= 0 {
		if at := strings.LastIndex(db, "@"); at > i {
			if c := strings.Index(db[i+3:at], ":"); c >= 0 {
				return db[:i+3+c] + ":***" + db[at:]
			}
		}
	}
	return db
}

func errString(err error) string {
	if err == nil || errors.Is(err, context.Canceled) {
		return ""
	}
	return err.Error()
}
