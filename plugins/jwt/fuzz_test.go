package jwt_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/jwt"
)

// FuzzVerify sends arbitrary authorization headers: each is answered
// 200, 400 or 401, never a panic nor a 500, and 200 only for a bearer
// token whose payload is the one signed. `go test` runs the seeds;
// `go test -run X -fuzz FuzzVerify ./` explores.
func FuzzVerify(f *testing.F) {
	secret := []byte(strings.Repeat("k", 32))
	s := app.New()
	s.Register(jwt.Plugin[struct{}](jwt.Secret(secret)))
	s.Get("/", func(c *jwt.Claims[struct{}]) (string, error) { return c.Subject, nil })
	if err := s.Ready(); err != nil {
		f.Fatal(err)
	}
	// A fixed expiry: under -fuzz every worker process runs this set-up
	// again, and its seeds must be the coordinator's to the byte.
	claims := map[string]any{"sub": "ada", "exp": time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).Unix()}
	valid := sign("HS256", secret, nil, claims)
	payload := strings.Split(valid, ".")[1]
	for _, seed := range []string{
		"Bearer " + valid, "bearer " + valid, "Bearer " + valid + " ", "Bearer " + sign("none", nil, nil, claims),
		"Bearer " + sign("HS256", []byte(strings.Repeat("x", 32)), nil, claims), "Bearer a.b.c", "Bearer ...",
		"Bearer " + strings.Repeat("a.", 3000), "Bearer eyJhbGciOiJIUzI1NiJ9.e30.", "Basic " + valid, "", "Bearer",
		"Bearer e30.e30.e30", "Bearer eyJhbGciOiJIUzI1NiIsImtpZCI6W119." + payload + ".AA",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		req := httptest.NewRequest("GET", "/", nil)
		req.Header["Authorization"] = []string{header}
		res, err := s.Inject(req)
		if err != nil {
			t.Fatal(err)
		}
		switch res.StatusCode {
		case 401, 400:
		case 200:
			fields := strings.Split(strings.TrimSpace(header[min(7, len(header)):]), ".")
			if len(fields) != 3 || fields[1] != payload {
				t.Fatalf("%q accepted", header)
			}
		default:
			t.Fatalf("%q: status %d", header, res.StatusCode)
		}
	})
}
