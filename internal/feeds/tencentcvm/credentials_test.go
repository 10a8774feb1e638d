package tencentcvm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeCred(t *testing.T, home, profile, body string) {
	t.Helper()
	dir := filepath.Join(home, ".tccli")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, profile+".credential"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoadCredentials(t *testing.T) {
	home := t.TempDir()
	// tccli configure writes {"secretId": ..., "secretKey": ...} (tccli/configure.py, OptionsDefine names).
	writeCred(t, home, "default", `{"secretId": "AKIDfile", "secretKey": "filekey"}`)
	writeCred(t, home, "work", `{"secretId": "AKIDwork", "secretKey": "workkey", "token": "worktoken"}`)
	writeCred(t, home, "broken", `{"secretId": "AKIDbroken", "secretKey": "brokenkey"`)
	writeCred(t, home, "role", `{"type": "cvm-role"}`)
	tests := []struct {
		name      string
		env       map[string]string
		home      string
		id, token string
		err       string
	}{
		{name: "environment first", env: map[string]string{EnvSecretID: "AKIDenv", EnvSecretKey: "envkey", EnvSessionToken: "t"}, home: home, id: "AKIDenv", token: "t"},
		{name: "default profile file", home: home, id: "AKIDfile"},
		{name: "TCCLI_PROFILE", env: map[string]string{EnvProfile: "work"}, home: home, id: "AKIDwork", token: "worktoken"},
		{name: "only one variable", env: map[string]string{EnvSecretID: "AKIDenv"}, home: home, err: "TENCENTCLOUD_SECRET_ID is set but TENCENTCLOUD_SECRET_KEY is not"},
		{name: "no file", home: t.TempDir(), err: ErrNoCredentials.Error()},
		{name: "no home", err: ErrNoCredentials.Error()},
		{name: "missing profile", env: map[string]string{EnvProfile: "nosuch"}, home: home, err: ErrNoCredentials.Error()},
		{name: "bad profile name", env: map[string]string{EnvProfile: "../../etc/passwd"}, home: home, err: "TCCLI_PROFILE"},
		{name: "broken file", env: map[string]string{EnvProfile: "broken"}, home: home, err: "not JSON"},
		{name: "role profile", env: map[string]string{EnvProfile: "role"}, home: home, err: `"cvm-role" profile`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := LoadCredentials(env(tc.env), tc.home)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				for _, secret := range []string{"brokenkey", "filekey", "workkey"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("error %q quotes a secret", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.SecretID != tc.id || c.Token != tc.token || c.SecretKey == "" {
				t.Errorf("got id %q token %q, want %q %q", c.SecretID, c.Token, tc.id, tc.token)
			}
		})
	}
	if _, err := LoadCredentials(nil, ""); !errors.Is(err, ErrNoCredentials) {
		t.Errorf("nil getenv: %v", err)
	}
}

func TestCredentialHelpNamesEverySource(t *testing.T) {
	help := New().CredentialHelp()
	for _, want := range []string{EnvSecretID, EnvSecretKey, EnvSessionToken, "~/.tccli/default.credential", EnvProfile} {
		if !strings.Contains(help, want) {
			t.Errorf("CredentialHelp() = %q, does not name %s", help, want)
		}
	}
}
