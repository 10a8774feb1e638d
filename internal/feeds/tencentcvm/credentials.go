package tencentcvm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// The environment variables credentials come from (those of Tencent's SDKs
// and tccli).
const (
	EnvSecretID     = "TENCENTCLOUD_SECRET_ID"
	EnvSecretKey    = "TENCENTCLOUD_SECRET_KEY"
	EnvSessionToken = "TENCENTCLOUD_SESSION_TOKEN"
	EnvProfile      = "TCCLI_PROFILE" // the tccli profile; default "default"
)

// Credentials are a SecretId and SecretKey, with the session token of
// temporary keys. They are never logged, written or put in an error.
type Credentials struct {
	SecretID, SecretKey, Token string
	From                       string // where they came from: the variables' names or the file's path
}

// ErrNoCredentials says no credentials were found; its message names where
// they are looked for.
// It wraps feeds.ErrNoCredentials, so `catalog refresh` answers it as a
// usage error with CredentialHelp.
var ErrNoCredentials = fmt.Errorf("tencent: %w: set "+EnvSecretID+" and "+EnvSecretKey+
	" (and "+EnvSessionToken+" for temporary keys), or run `tccli configure` to write ~/.tccli/default.credential", feeds.ErrNoCredentials)

// maxCredentialFile bounds the credential file read.
const maxCredentialFile = 1 << 16

var profileRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`) })

// LoadCredentials finds the credentials: the environment first (both
// variables set), then tccli's profile file home/.tccli/PROFILE.credential,
// a JSON object {"secretId": ..., "secretKey": ..., "token": ...} (PROFILE
// from TCCLI_PROFILE, default "default"). home "" skips the file.
func LoadCredentials(getenv func(string) string, home string) (Credentials, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	id, key := getenv(EnvSecretID), getenv(EnvSecretKey)
	switch {
	case id != "" && key != "":
		return Credentials{SecretID: id, SecretKey: key, Token: getenv(EnvSessionToken), From: EnvSecretID + "/" + EnvSecretKey}, nil
	case id != "" || key != "":
		set, unset := EnvSecretID, EnvSecretKey
		if key != "" {
			set, unset = EnvSecretKey, EnvSecretID
		}
		return Credentials{}, fmt.Errorf("tencent: %s is set but %s is not: set both", set, unset)
	}
	if home == "" {
		return Credentials{}, ErrNoCredentials
	}
	profile := getenv(EnvProfile)
	if profile == "" {
		profile = "default"
	}
	if !profileRE().MatchString(profile) {
		return Credentials{}, fmt.Errorf("tencent: %s %q: want letters, digits, '.', '_' or '-'", EnvProfile, profile)
	}
	path := filepath.Join(home, ".tccli", profile+".credential")
	fh, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Credentials{}, ErrNoCredentials
	}
	if err != nil {
		return Credentials{}, fmt.Errorf("tencent: reading %s: %w", path, err)
	}
	defer fh.Close()
	var f struct {
		SecretID  string `json:"secretId"`
		SecretKey string `json:"secretKey"`
		Token     string `json:"token"`
		Type      string `json:"type"`
	}
	b, err := io.ReadAll(io.LimitReader(fh, maxCredentialFile+1))
	if err != nil {
		return Credentials{}, fmt.Errorf("tencent: reading %s: %w", path, err)
	}
	if len(b) > maxCredentialFile {
		return Credentials{}, fmt.Errorf("tencent: %s: larger than %d bytes, not a tccli credential file", path, maxCredentialFile)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		// The decoder's message may quote the file: say only where it is broken.
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return Credentials{}, fmt.Errorf("tencent: %s: not JSON (at byte %d); run `tccli configure` to rewrite it", path, se.Offset)
		}
		return Credentials{}, fmt.Errorf("tencent: %s: not a tccli credential file (want an object with secretId and secretKey)", path)
	}
	if f.SecretID == "" || f.SecretKey == "" {
		if f.Type != "" && f.Type != "default" {
			return Credentials{}, fmt.Errorf("tencent: %s is a %q profile; gpuscout reads SecretId and SecretKey only: set %s and %s", path, f.Type, EnvSecretID, EnvSecretKey)
		}
		return Credentials{}, fmt.Errorf("tencent: %s has no secretId or secretKey; run `tccli configure` or set %s and %s", path, EnvSecretID, EnvSecretKey)
	}
	return Credentials{SecretID: f.SecretID, SecretKey: f.SecretKey, Token: f.Token, From: path}, nil
}
