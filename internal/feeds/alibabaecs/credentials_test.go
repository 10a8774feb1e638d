package alibabaecs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".aliyun"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".aliyun", "config.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// A config.json in the aliyun CLI's layout (config/profile.go of aliyun/aliyun-cli).
const cliConfig = `{
  "current": "work",
  "profiles": [
    {"name": "default", "mode": "AK", "access_key_id": "LTAIdefault", "access_key_secret": "defaultsecret", "region_id": "cn-hangzhou", "output_format": "json", "language": "en"},
    {"name": "work", "mode": "StsToken", "access_key_id": "STS.work", "access_key_secret": "worksecret", "sts_token": "worktoken", "region_id": "cn-beijing"},
    {"name": "role", "mode": "RamRoleArn", "access_key_id": "LTAIrole", "access_key_secret": "rolesecret", "ram_role_arn": "acs:ram::1:role/x"}
  ],
  "meta_path": ""
}`

func TestLoadCredentials(t *testing.T) {
	home := writeConfig(t, cliConfig)
	for _, tc := range []struct {
		name               string
		env                map[string]string
		home               string
		id, secret, token  string
		from, errSubstring string
		noCreds            bool
	}{
		{name: "environment", env: map[string]string{EnvAccessKeyID: "LTAIenv", EnvAccessKeySecret: "envsecret", EnvSecurityToken: "envtoken"}, home: home,
			id: "LTAIenv", secret: "envsecret", token: "envtoken", from: "environment"},
		{name: "current profile", home: home, id: "STS.work", secret: "worksecret", token: "worktoken", from: "profile work"},
		{name: "named profile", env: map[string]string{EnvProfile: "default"}, home: home, id: "LTAIdefault", secret: "defaultsecret", from: "profile default"},
		{name: "unsupported mode", env: map[string]string{EnvProfile: "role"}, home: home, errSubstring: `mode "RamRoleArn"`},
		{name: "no such profile", env: map[string]string{EnvProfile: "nope"}, home: home, errSubstring: `no profile "nope"`, noCreds: true},
		{name: "id without secret", env: map[string]string{EnvAccessKeyID: "LTAIenv"}, home: home, errSubstring: EnvAccessKeySecret + " is not"},
		{name: "nothing", home: t.TempDir(), errSubstring: EnvAccessKeyID, noCreds: true},
		{name: "no home", errSubstring: EnvAccessKeyID, noCreds: true},
		{name: "not json", home: writeConfig(t, "{"), errSubstring: "not the aliyun CLI's JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := LoadCredentials(env(tc.env), tc.home)
			if tc.errSubstring != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSubstring) {
					t.Fatalf("err = %v, want one containing %q", err, tc.errSubstring)
				}
				if errors.Is(err, feeds.ErrNoCredentials) != tc.noCreds {
					t.Errorf("errors.Is(err, ErrNoCredentials) = %v, want %v", !tc.noCreds, tc.noCreds)
				}
				for _, secret := range []string{"rolesecret", "worksecret", "defaultsecret"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("error %q shows a secret", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.AccessKeyID != tc.id || c.AccessKeySecret != tc.secret || c.SecurityToken != tc.token || !strings.Contains(c.From, tc.from) {
				t.Errorf("got %s (token set %v), want %s from %s", c, c.SecurityToken != "", tc.id, tc.from)
			}
			for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c)} {
				if strings.Contains(s, tc.secret) || tc.token != "" && strings.Contains(s, tc.token) {
					t.Errorf("formatted credentials %q show the secret or token", s)
				}
			}
		})
	}
}
