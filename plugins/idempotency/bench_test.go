package idempotency_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkPost measures what the Idempotency-Key check adds to a POST
// that inserts a row in the request's transaction, on SQLite and
// PostgreSQL: "none" sends no key (the route still has the check's
// hooks), "new" a fresh key each time (claim, then record the answer),
// "replay" the same key each time (one read, the stored answer sent).
//
//	cd plugins/idempotency && go test -run '^$' -bench Post -benchmem
func BenchmarkPost(b *testing.B) {
	for _, be := range backends {
		b.Run(be.Name, func(b *testing.B) {
			for _, mode := range []string{"none", "new", "replay"} {
				b.Run(mode, func(b *testing.B) {
					db := be.Open(b)
					setup(b, db, dialects[be.Name])
					sv := newService(b, db, dialects[be.Name])
					b.ReportAllocs()
					b.ResetTimer()
					for i := range b.N {
						body := `{"name":"item-` + strconv.Itoa(i) + `"}`
						req := httptest.NewRequest("POST", "/items", strings.NewReader(body))
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("X-User", "alice")
						switch mode {
						case "new":
							req.Header.Set("Idempotency-Key", "key-"+strconv.Itoa(i))
						case "replay":
							req = httptest.NewRequest("POST", "/items", strings.NewReader(`{"name":"same"}`))
							req.Header.Set("Content-Type", "application/json")
							req.Header.Set("X-User", "alice")
							req.Header.Set("Idempotency-Key", "same")
						}
						res, err := sv.s.Inject(req)
						if err != nil {
							b.Fatal(err)
						}
						res.Body.Close()
						if res.StatusCode != http.StatusCreated {
							b.Fatalf("status %d", res.StatusCode)
						}
					}
				})
			}
		})
	}
}
