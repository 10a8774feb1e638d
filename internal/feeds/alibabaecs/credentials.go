package alibabaecs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Credential environment variables, as Alibaba Cloud's SDKs and CLI read them.
const (
	EnvAccessKeyID     = "ALIBABA_CLOUD_ACCESS_KEY_ID"
	EnvAccessKeySecret = "ALIBABA_CLOUD_ACCESS_KEY_SECRET"
	EnvSecurityToken   = "ALIBABA_CLOUD_SECURITY_TOKEN"
	// EnvProfile names the profile of ~/.aliyun/config.json to use (the
	// aliyun CLI's variable); the file's "current" profile otherwise.
	EnvProfile = "ALIBABA_CLOUD_PROFILE"
)

// configPath is the aliyun CLI's configuration file under the home folder.
const configPath = ".aliyun/config.json"

// credentialHelp says where credentials are read from; it never holds one.
const credentialHelp = EnvAccessKeyID + " and " + EnvAccessKeySecret + " (and " + EnvSecurityToken +
	" for an STS token), or an AK or StsToken profile of ~/" + configPath + " (the aliyun CLI's; " + EnvProfile + " picks the profile)"

// Credentials are an AccessKey pair, with the STS token of temporary ones.
type Credentials struct {
	AccessKeyID, AccessKeySecret, SecurityToken string
	From                                        string // where they were read: an environment variable or the file and profile
}

// String never shows the secret or the token.
func (c Credentials) String() string { return "AccessKey " + c.AccessKeyID + " from " + c.From }

// GoString is String, so that %#v does not print the secret either.
func (c Credentials) GoString() string { return c.String() }

// aliyunConfig is the part of the aliyun CLI's config.json read here.
type aliyunConfig struct {
	Current  string `json:"current"`
	Profiles []struct {
		Name            string `json:"name"`
		Mode            string `json:"mode"`
		AccessKeyID     string `json:"access_key_id"`
		AccessKeySecret string `json:"access_key_secret"`
		StsToken        string `json:"sts_token"`
	} `json:"profiles"`
}

// LoadCredentials finds the user's credentials: the environment first, then
// the aliyun CLI's profile under home ("" skips the file). None found is an
// error wrapping feeds.ErrNoCredentials; errors name the variable, file or
// profile, never a credential.
func LoadCredentials(getenv func(string) string, home string) (Credentials, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	id, secret := strings.TrimSpace(getenv(EnvAccessKeyID)), strings.TrimSpace(getenv(EnvAccessKeySecret))
	switch {
	case id != "" && secret != "":
		return Credentials{AccessKeyID: id, AccessKeySecret: secret, SecurityToken: strings.TrimSpace(getenv(EnvSecurityToken)), From: "environment"}, nil
	case id != "":
		return Credentials{}, fmt.Errorf("alibaba: %s is set but %s is not", EnvAccessKeyID, EnvAccessKeySecret)
	case secret != "":
		return Credentials{}, fmt.Errorf("alibaba: %s is set but %s is not", EnvAccessKeySecret, EnvAccessKeyID)
	}
	if home == "" {
		return Credentials{}, fmt.Errorf("alibaba: %w: set %s", feeds.ErrNoCredentials, credentialHelp)
	}
	path := filepath.Join(home, filepath.FromSlash(configPath))
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Credentials{}, fmt.Errorf("alibaba: %w: set %s", feeds.ErrNoCredentials, credentialHelp)
	}
	if err != nil {
		return Credentials{}, fmt.Errorf("alibaba: reading %s: %w", path, err)
	}
	var cfg aliyunConfig
	if err := json.Unmarshal(b, &cfg); err != nil {
		return Credentials{}, fmt.Errorf("alibaba: %s is not the aliyun CLI's JSON configuration: %v", path, err)
	}
	name := strings.TrimSpace(getenv(EnvProfile))
	if name == "" {
		name = cfg.Current
	}
	if name == "" {
		name = "default"
	}
	for _, p := range cfg.Profiles {
		if p.Name != name {
			continue
		}
		from := path + " profile " + name
		switch strings.ToLower(p.Mode) {
		case "ak", "":
			p.StsToken = ""
		case "ststoken":
			if p.StsToken == "" {
				return Credentials{}, fmt.Errorf("alibaba: %s: mode StsToken without sts_token", from)
			}
		default:
			return Credentials{}, fmt.Errorf("alibaba: %s: mode %q is not read by gpuscout (AK and StsToken are); set %s and %s instead", from, p.Mode, EnvAccessKeyID, EnvAccessKeySecret)
		}
		if p.AccessKeyID == "" || p.AccessKeySecret == "" {
			return Credentials{}, fmt.Errorf("alibaba: %s: access_key_id or access_key_secret is empty", from)
		}
		return Credentials{AccessKeyID: p.AccessKeyID, AccessKeySecret: p.AccessKeySecret, SecurityToken: p.StsToken, From: from}, nil
	}
	return Credentials{}, fmt.Errorf("alibaba: %w: %s has no profile %q", feeds.ErrNoCredentials, path, name)
}
