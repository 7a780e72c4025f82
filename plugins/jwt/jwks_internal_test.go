package jwt

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// lifetime follows the key set answer's caching headers, within bounds.
func TestLifetime(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"nothing", http.Header{}, defaultRefresh},
		{"max-age", http.Header{"Cache-Control": {"public, max-age=3600"}}, time.Hour},
		{"max-age below the floor", http.Header{"Cache-Control": {"max-age=5"}}, minRefresh},
		{"max-age above the ceiling", http.Header{"Cache-Control": {"max-age=9999999999999"}}, maxRefresh},
		{"no-store", http.Header{"Cache-Control": {"no-store"}}, minRefresh},
		{"no-cache beside max-age", http.Header{"Cache-Control": {"max-age=3600, no-cache"}}, minRefresh},
		{"invalid max-age", http.Header{"Cache-Control": {"max-age=soon"}}, defaultRefresh},
		{"expires from date", http.Header{"Expires": {now.Add(2 * time.Hour).Format(http.TimeFormat)},
			"Date": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 3 * time.Hour},
		{"expires from now", http.Header{"Expires": {now.Add(2 * time.Hour).Format(http.TimeFormat)}}, 2 * time.Hour},
		{"expires in the past", http.Header{"Expires": {now.Add(-time.Hour).Format(http.TimeFormat)}}, minRefresh},
		{"max-age beats expires", http.Header{"Cache-Control": {"max-age=600"},
			"Expires": {now.Add(2 * time.Hour).Format(http.TimeFormat)}}, 10 * time.Minute},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, lifetime(tt.header, now), tt.name)
	}
}

// One key the plugin cannot use leaves the others of its set usable; a
// set with none is an error, which keeps the keys fetched before.
func TestParseSet(t *testing.T) {
	t.Parallel()
	good := `{"kty":"EC","kid":"ec1","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}`
	set, err := parseSet([]byte(`{"keys":[{"kty":"XYZ","kid":"odd"},{"kty":"oct","kid":"o","k":"c2VjcmV0"},` + good + `]}`))
	if assert.NoError(t, err) {
		assert.Len(t, set.all, 1)
		assert.Len(t, set.find("ec1"), 1)
		assert.Empty(t, set.find("odd"))
	}
	for body, msg := range map[string]string{
		`{"keys":[]}`: "the key set holds no key",
		`{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`: "the key set holds no usable signature key: a symmetric key in a key set is never used",
		`not json`: "the key set cannot be read",
	} {
		_, err := parseSet([]byte(body))
		assert.ErrorContains(t, err, msg, body)
	}
}
