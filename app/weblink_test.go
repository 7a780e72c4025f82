package app_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
)

// format=uri is JSON Schema's: any scheme, javascript: included.
// format=weblink takes what is safe to render as a link: http or https,
// with a host and no user information.
func TestWeblinkTakesHTTPLinksOnly(t *testing.T) {
	t.Parallel()
	type profile struct {
		URI  string `json:"uri" validate:"format=uri"`
		Link string `json:"link" validate:"format=weblink"`
	}
	s := apptest.New(t)
	s.Post("/profile", func(b app.Body[profile]) (string, error) { return "ok", nil })
	require.NoError(t, s.Ready())
	tests := []struct {
		value    string
		uri, web bool // accepted
	}{
		{"https://img.example/a.png", true, true},
		{"http://img.example:8080/a.png?x=1#y", true, true},
		{"HTTPS://IMG.EXAMPLE/", true, true},
		{"javascript:alert(1)", true, false},
		{"JavaScript://img.example/%0aalert(1)", true, false},
		{"data:text/html,<script>alert(1)</script>", true, false},
		{"vbscript:msgbox(1)", true, false},
		{"file:///etc/passwd", false, false},
		{"ftp://files.example/a", true, false},
		{"https://bank.example@evil.example/", true, false},
		{"https://:443/", true, false},
		{"https:img.example", true, false},
		{"//img.example/a.png", false, false},
		{"/a.png", false, false},
		{"https://img.example/a b", true, false},
		{`https:\\evil.example\a`, true, false},
		{"https://img.example/a%20b", true, true},
	}
	for _, tt := range tests {
		for _, field := range []string{"uri", "link"} {
			want := tt.uri
			if field == "link" {
				want = tt.web
			}
			body, err := json.Marshal(map[string]string{field: tt.value})
			require.NoError(t, err)
			r := apptest.Do(t, s, http.MethodPost, "/profile", bytes.NewReader(body), "Content-Type", "application/json")
			if want {
				assert.Equal(t, http.StatusOK, r.StatusCode, "%s %q: %s", field, tt.value, r.Body)
			} else {
				assert.Equal(t, http.StatusBadRequest, r.StatusCode, "%s %q", field, tt.value)
				assert.Contains(t, r.Body, "body/"+field, "%s %q", field, tt.value)
			}
		}
	}
}
