package compress_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app/apptest"
)

// A typed route with app.ETag: its compressed 200 has the weak form of
// the tag its identity 200 has; If-None-Match with either form answers
// 304 with the tag of the request's own 200 and its Cache-Control and
// Vary; HEAD gets GET's tag.
func TestTypedRouteETagUnderCompression(t *testing.T) {
	t.Parallel()
	url := server(t)
	plain := apptest.Fetch(t, "GET", url+"/tagged")
	require.Equal(t, 200, plain.StatusCode)
	strong := plain.Header.Get("ETag")
	require.Regexp(t, `^"[A-Za-z0-9_-]+"$`, strong)
	for _, coding := range []string{"gzip", "br", "zstd"} {
		t.Run(coding, func(t *testing.T) {
			t.Parallel()
			ok := apptest.Fetch(t, "GET", url+"/tagged", "Accept-Encoding", coding)
			require.Equal(t, coding, ok.Header.Get("Content-Encoding"))
			assert.Equal(t, "W/"+strong, ok.Header.Get("ETag"))
			head := apptest.Fetch(t, "HEAD", url+"/tagged", "Accept-Encoding", coding)
			assert.Equal(t, "W/"+strong, head.Header.Get("ETag"))
			for _, inm := range []string{strong, "W/" + strong} {
				res := apptest.Fetch(t, "GET", url+"/tagged", "Accept-Encoding", coding, "If-None-Match", inm)
				assert.Equal(t, 304, res.StatusCode)
				assert.Empty(t, res.Body)
				assert.Empty(t, res.Header.Get("Content-Encoding"))
				assert.Equal(t, "W/"+strong, res.Header.Get("ETag"))
				assert.Equal(t, "private, no-cache", res.Header.Get("Cache-Control"))
				assert.Equal(t, "Accept-Encoding", res.Header.Get("Vary"))
			}
		})
	}
	res := apptest.Fetch(t, "GET", url+"/tagged", "If-None-Match", "W/"+strong)
	assert.Equal(t, 304, res.StatusCode)
	assert.Equal(t, strong, res.Header.Get("ETag"), "no coding negotiated: the strong tag")
}
