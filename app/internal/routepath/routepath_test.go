package routepath

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBraced(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ path, wildcard, want string }{
		{"/", "w", "/"},
		{"/todos/:id", "w", "/todos/{id}"},
		{"/a/:x/b/:y", "w", "/a/{x}/b/{y}"},
		{"/files/*", "*...", "/files/{*...}"},
		{"/files/*", "wildcard", "/files/{wildcard}"},
		{"/a*b/:", "w", "/a*b/{}"},
	} {
		assert.Equal(t, tt.want, Braced(tt.path, tt.wildcard), tt.path)
	}
}

func TestParam(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		seg, name string
		ok        bool
	}{
		{":id", "id", true},
		{"*", Wildcard, true},
		{"todos", "", false},
		{"", "", false},
		{"a*b", "", false},
		{"a:b", "", false},
		{":", "", true},
	} {
		name, ok := Param(tt.seg)
		assert.Equal(t, tt.name, name, tt.seg)
		assert.Equal(t, tt.ok, ok, tt.seg)
	}
}
