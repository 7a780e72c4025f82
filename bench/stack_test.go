package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
	rscors "github.com/rs/cors"
	"github.com/stretchr/testify/require"
	unrolled "github.com/unrolled/secure"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bench/internal/stack"
	"github.com/burrow-go/burrow/plugins/compress"
	"github.com/burrow-go/burrow/plugins/cors"
	"github.com/burrow-go/burrow/plugins/secure"
)

// The production edge, side by side: one JSON route answering about 4
// KiB behind CORS, security headers and gzip, on Burrow with its plugins
// and on chi with the libraries a chi service uses (rs/cors,
// unrolled/secure, klauspost's gzhttp), gzip at the same level. Each
// request is a browser's: an allowed Origin, Accept-Encoding gzip.

// stackBody is the 4 KiB answer, encoded per request.
var stackBody = stack.NewCatalog(58)

const stackOrigin = stack.Origin

// burrowStack is the route behind Burrow's cors, secure and compress
// plugins, registered on the root.
func burrowStack(tb testing.TB) http.Handler {
	s := app.New()
	s.Register(cors.Plugin(cors.Origins(stackOrigin)))
	s.Register(secure.Plugin())
	s.Register(compress.Plugin(compress.GzipLevel(gzip.DefaultCompression), compress.Encodings("gzip")))
	app.Get(s, stack.Path, func(context.Context, struct{}) (stack.Catalog, error) { return stackBody, nil })
	require.NoError(tb, s.Ready())
	return s
}

// chiStack is the same route on chi.
func chiStack(tb testing.TB) http.Handler {
	r := chi.NewRouter()
	r.Use(rscors.New(rscors.Options{AllowedOrigins: []string{stackOrigin}}).Handler)
	r.Use(unrolled.New(unrolled.Options{
		ContentTypeNosniff: true, FrameDeny: true, ReferrerPolicy: "no-referrer",
		CrossOriginOpenerPolicy: "same-origin", CrossOriginResourcePolicy: "same-origin",
		ContentSecurityPolicy: "default-src 'self'", STSSeconds: 31536000, IsDevelopment: true,
	}).Handler)
	gz, err := gzhttp.NewWrapper(gzhttp.CompressionLevel(gzip.DefaultCompression))
	require.NoError(tb, err)
	r.Use(func(next http.Handler) http.Handler { return gz(next) })
	r.Get(stack.Path, func(w http.ResponseWriter, _ *http.Request) {
		b, err := json.Marshal(stackBody)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(b)
	})
	return r
}

func stackRequest() *http.Request {
	r := httptest.NewRequest("GET", stack.Path, nil)
	r.Header.Set("Origin", stackOrigin)
	r.Header.Set("Accept-Encoding", "gzip")
	return r
}

// TestStacksAnswerAlike checks that both stacks do the work the benchmark
// compares: CORS allowed, the headers set, gzip applied, the same JSON.
func TestStacksAnswerAlike(t *testing.T) {
	for name, h := range map[string]http.Handler{"burrow": burrowStack(t), "chi": chiStack(t)} {
		t.Run(name, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, stackRequest())
			res := w.Result()
			require.Equal(t, 200, res.StatusCode)
			require.Equal(t, stackOrigin, res.Header.Get("Access-Control-Allow-Origin"))
			require.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
			require.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
			zr, err := gzip.NewReader(res.Body)
			require.NoError(t, err)
			var got stack.Catalog
			require.NoError(t, json.NewDecoder(zr).Decode(&got))
			require.Equal(t, stackBody, got)
			raw, _ := json.Marshal(stackBody)
			require.InDelta(t, 4096, len(raw), 300, "about 4 KiB before compression")
		})
	}
}

func benchStack(b *testing.B, h http.Handler) {
	req := stackRequest()
	w := &recorder{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, req)
	}
}

// BenchmarkStack is the route behind the edge plugins, on Burrow and on
// chi.
func BenchmarkStack(b *testing.B) {
	b.Run("burrow", func(b *testing.B) { benchStack(b, burrowStack(b)) })
	b.Run("chi", func(b *testing.B) { benchStack(b, chiStack(b)) })
}
