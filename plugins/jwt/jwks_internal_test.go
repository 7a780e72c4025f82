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
