package static_test

import (
	"fmt"
	"net/http/httptest"
	"testing/fstest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/static"
)

// A single-page app beside an API: hashed assets cached for a year, the
// shell for browser navigations, JSON 404s for the API.
func Example() {
	dist := fstest.MapFS{ // an embed.FS in a real program
		"index.html":                {Data: []byte(`<!doctype html><script src="/assets/app-5XKEG3TS.js"></script>`)},
		"assets/app-5XKEG3TS.js":    {Data: []byte(`console.log("hi")`)},
		"assets/app-5XKEG3TS.js.gz": {Data: []byte("…gzip bytes…")},
	}
	s := app.New()
	s.Register(static.Plugin(dist, static.Fallback("index.html")))
	s.Get("/todos/:id", func() (string, error) { return "a todo", nil })

	for _, c := range []struct{ path, accept string }{
		{"/assets/app-5XKEG3TS.js", "*/*"},
		{"/settings", "text/html"},
		{"/todos/1/x", "text/html"},
	} {
		req := httptest.NewRequest("GET", c.path, nil)
		req.Header.Set("Accept", c.accept)
		res, _ := s.Inject(req)
		fmt.Println(c.path, res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"))
	}
	// Output:
	// /assets/app-5XKEG3TS.js 200 text/javascript; charset=utf-8 public, max-age=31536000, immutable
	// /settings 200 text/html; charset=utf-8 no-cache
	// /todos/1/x 404 application/json; charset=utf-8
}
