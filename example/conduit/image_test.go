package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The profile image is rendered by front ends as an image's source: only
// an http or https link is stored, never javascript: or data:.
func TestImageIsAWebLink(t *testing.T) {
	t.Parallel()
	alice := (&client{t: t, base: start(t)}).register("alice")
	tests := []struct {
		image  string
		status int
	}{
		{"javascript:alert(1)", 422},
		{"data:image/svg+xml,<svg onload=alert(1)>", 422},
		{"https://user@img.example/a.png", 422},
		{"https://img.example/alice.png", 200},
	}
	for _, tt := range tests {
		status, m := alice.do("PUT", "/api/user", map[string]any{"user": map[string]any{"image": tt.image}})
		require.Equal(t, tt.status, status, "%s: %v", tt.image, m)
		if status == 422 {
			assert.Equal(t, map[string]any{"errors": map[string]any{"image": []any{`must match format "weblink"`}}}, m)
		}
	}
	status, m := alice.do("GET", "/api/user", nil)
	require.Equal(t, 200, status)
	assert.Equal(t, "https://img.example/alice.png", m["user"].(map[string]any)["image"])
}
