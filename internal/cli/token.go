package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/server"
	"github.com/gpuscout/gpuscout/internal/store"
)

func newTokenCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Make, list and revoke the team server's API tokens",
		Long: `Make, list and revoke the API tokens of 'gpuscout serve', directly in its store
(--db). A token's secret is printed once, when it is made; the store keeps only
its SHA-256. Scopes: read, write (also reads), admin (also manages tokens). A
token made with --expires stops working then (the server answers 401 saying it
expired); without it, it works until revoked.`,
		Args: cobra.NoArgs,
	}
	var db string
	cmd.PersistentFlags().StringVar(&db, "db", defaultDB, "the server's store: "+store.DSNRule)

	var name, expires string
	var scopes []string
	create := &cobra.Command{
		Use:     "create --name NAME [--scope write] [--expires 90d]",
		Short:   "Make a token and print its secret (shown this once)",
		Example: "  gpuscout token create --name ci-uploader\n  gpuscout token create --name ops --scope admin\n  gpuscout token create --name contractor --scope read --expires 90d",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if name == "" {
				return usagef("--name: required; 1 to 64 letters, digits, '.', '_' or '-'")
			}
			secret, t, err := server.NewToken(name, scopes, e.now())
			if err != nil {
				return usagef("--%v", err) // "--name …" or "--scope …"
			}
			if expires != "" {
				d, err := server.ParseLifetime(expires)
				if err != nil {
					return usagef("--expires %v", err)
				}
				t.ExpiresAt = t.CreatedAt.Add(d)
			}
			st, _, err := openStore(cmd.Context(), db, false)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.CreateToken(cmd.Context(), t); errors.Is(err, store.ErrExists) {
				return usagef("--name %q: a token with this name exists (token list; token revoke)", name)
			} else if err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, secret)
			until := ""
			if !t.ExpiresAt.IsZero() {
				until = ", expiring " + t.ExpiresAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(e.stderr, "token %q (%s%s) made; its secret above is shown only now\n", name, strings.Join(t.Scopes, ","), until)
			return nil
		},
	}
	create.Flags().StringVar(&name, "name", "", "the token's name (unique)")
	create.Flags().StringSliceVar(&scopes, "scope", []string{server.ScopeWrite}, "scopes: read, write, admin (comma-separated)")
	create.Flags().StringVar(&expires, "expires", "", "the token stops working this long after it is made: 1h to 10y, e.g. 90d, 12w, 1y (default: never)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List the tokens (names, scopes, last use, expiry; never secrets)",
		Args:  cobra.NoArgs,
	}
	getFormat := outputFlag(list)
	list.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		st, _, err := openStore(cmd.Context(), db, true)
		if err != nil {
			return err
		}
		defer st.Close()
		ts, err := st.ListTokens(cmd.Context())
		if err != nil {
			return err
		}
		t := &render.Table{Columns: []render.Column{{Header: "NAME"}, {Header: "SCOPES"}, {Header: "CREATED"}, {Header: "LAST USED"}, {Header: "EXPIRES"}, {Header: "REVOKED"}}}
		type tokenOut struct {
			Name      string   `json:"name"`
			Scopes    []string `json:"scopes"`
			CreatedAt string   `json:"created_at"`
			LastUsed  string   `json:"last_used,omitempty"`
			ExpiresAt string   `json:"expires_at,omitempty"` // absent: never
			Expired   bool     `json:"expired"`
			Revoked   bool     `json:"revoked"`
		}
		out := []tokenOut{}
		now := e.now()
		for _, tk := range ts {
			o := tokenOut{Name: tk.Name, Scopes: tk.Scopes, CreatedAt: tk.CreatedAt.UTC().Format(time.RFC3339), Revoked: tk.Revoked, Expired: tk.Expired(now)}
			if !tk.LastUsed.IsZero() {
				o.LastUsed = tk.LastUsed.UTC().Format(time.RFC3339)
			}
			expiry := "never"
			if !tk.ExpiresAt.IsZero() {
				o.ExpiresAt = tk.ExpiresAt.UTC().Format(time.RFC3339)
				expiry = o.ExpiresAt
				if o.Expired {
					expiry += " (expired)"
				}
			}
			out = append(out, o)
			t.Rows = append(t.Rows, []string{o.Name, strings.Join(o.Scopes, ","), o.CreatedAt, dash(o.LastUsed), expiry, fmt.Sprint(o.Revoked)})
		}
		return e.write(format, t, out)
	}

	revoke := &cobra.Command{
		Use:   "revoke NAME",
		Short: "Revoke a token: it is refused from now on",
		Args:  exactlyOne("token name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, _, err := openStore(cmd.Context(), db, true)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.RevokeToken(cmd.Context(), args[0]); errors.Is(err, store.ErrNotFound) {
				return usagef("token %q: no such token (token list)", args[0])
			} else if err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "token %q revoked\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}
