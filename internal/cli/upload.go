package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/server"
	"github.com/gpuscout/gpuscout/internal/server/client"
)

// uploadFlags are --upload and --token of bench, advise and agent.
type uploadFlags struct {
	url, token string
}

func (f *uploadFlags) register(cmd *cobra.Command, what string) {
	fl := cmd.Flags()
	fl.StringVar(&f.url, "upload", "", "upload "+what+" to a gpuscout server, http(s)://HOST[:PORT] (also "+client.EnvURL+")")
	fl.StringVar(&f.token, "token", "", "the server's write token for --upload (also "+client.EnvToken+")")
}

// client returns the upload client, nil when no upload was asked for; a
// bad URL or a missing token is a usage error.
func (f *uploadFlags) client() (*client.Client, error) {
	u, tok := f.url, f.token
	if u == "" {
		u = getenv(client.EnvURL)
	}
	if tok == "" {
		tok = getenv(client.EnvToken)
	}
	if u == "" {
		if f.token != "" {
			return nil, usagef("--token without --upload: give the server's address with --upload or %s", client.EnvURL)
		}
		return nil, nil
	}
	c, err := client.New(u, tok)
	if err != nil {
		return nil, usagef("--upload: %v", err)
	}
	if nk := getenv(client.EnvNodeKey); nk != "" {
		id, hexKey, _ := strings.Cut(nk, ":")
		key, err := server.ParseKey(hexKey)
		if err != nil || id == "" {
			return nil, usagef("%s: want KEY-ID:HEX-KEY, the key the server lists in --node-keys", client.EnvNodeKey)
		}
		c.KeyID, c.Key = id, key
	}
	return c, nil
}

// upload sends body and says what happened on stderr.
func (e *env) upload(ctx context.Context, c *client.Client, kind string, body []byte) error {
	r, err := c.Upload(ctx, kind, body)
	if err != nil {
		return err
	}
	state := "stored"
	if !r.Created {
		state = "already stored"
	}
	fmt.Fprintf(e.stderr, "uploaded %s %s (%s)\n", kind, r.ID, state)
	return nil
}
