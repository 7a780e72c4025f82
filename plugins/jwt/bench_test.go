package jwt_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/jwt"
)

// The per-request cost of verifying a token, through the whole server:
// RS256 and ES256 with keys from a JWK set (fetched before the timing),
// HS256 with a static secret, beside a static bearer key (bearer.Keys)
// and no authentication at all. The timings are the lead's to run on a
// quiet machine:
//
//	cd plugins/jwt && go test -run '^$' -bench '^BenchmarkVerify' -benchmem -count 6 .

func BenchmarkVerifyRS256(b *testing.B) {
	is := newIssuer(b)
	benchVerify(b, guarded(b, jwt.Plugin[struct{}](jwt.Discovery(is.URL), jwt.Audience("api"))), is.token(time.Now(), nil))
}

func BenchmarkVerifyES256(b *testing.B) {
	is := newIssuer(b)
	token := sign("ES256", ecKey, map[string]any{"kid": "ec1"}, is.claims(time.Now(), nil))
	benchVerify(b, guarded(b, jwt.Plugin[struct{}](jwt.Discovery(is.URL), jwt.Audience("api"))), token)
}

func BenchmarkVerifyHS256(b *testing.B) {
	secret := []byte("a secret of thirty-two bytes....")
	token := sign("HS256", secret, nil, map[string]any{"sub": "ada", "exp": time.Now().Add(time.Hour).Unix()})
	benchVerify(b, guarded(b, jwt.Plugin[struct{}](jwt.Secret(secret))), token)
}

func BenchmarkVerifyStaticBearerKey(b *testing.B) {
	benchVerify(b, guarded(b, bearer.Plugin(bearer.Keys("a-static-key-of-some-length"))), "a-static-key-of-some-length")
}

func BenchmarkVerifyNone(b *testing.B) {
	benchVerify(b, guarded(b, nil), "unused")
}

// guarded is a server whose one route plugin guards (none for nil).
func guarded(b *testing.B, plugin *app.Plugin) *app.Server {
	s := app.New(app.WithLogger(zap.NewNop()), app.WithoutRequestLogging())
	if plugin != nil {
		s.Register(plugin)
	}
	s.Get("/", func(*httpx.Request) (any, error) { return nil, nil })
	if err := s.Ready(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(b.Context()) })
	return s
}

func benchVerify(b *testing.B, s *app.Server, token string) {
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req) // fetches the keys, warms the pools
	if w.Code != http.StatusOK {
		b.Fatalf("status %d: %s", w.Code, w.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.Body.Reset()
		s.ServeHTTP(w, req)
	}
}
