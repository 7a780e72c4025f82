package bearer_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/burrow-go/burrow/bearer"
)

// FuzzVerify checks the header parser against a plain model: 200 only for
// "Bearer " (any case; exact case with Strict) followed by a configured
// key (trimmed),
// 401 for everything else, and never a panic. `go test` runs the seeds;
// `go test -run X -fuzz FuzzVerify ./bearer` explores.
func FuzzVerify(f *testing.F) {
	keys := []string{"k1", "a-much-longer-second-key"}
	lenient := newApp(f, nil, bearer.Keys(keys...))
	strict := newApp(f, nil, bearer.Keys(keys...), bearer.CaseSensitive())
	for _, seed := range []string{
		"", "Bearer k1", "bearer k1", "BEARER k1", "Bearer  k1 ", "Bearer", "Bearer ", "Bearerk1",
		"Basic k1", "Bearer wrong", "Bearer a-much-longer-second-key", "Bearer k1\x00", "Bearer \tk1\t",
		"Bearer\tk1", "ＢEARER k1", "Bearer k1 k1",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, header string, exact bool) {
		s, schemeOK := lenient, strings.EqualFold
		if exact {
			s, schemeOK = strict, func(a, b string) bool { return a == b }
		}
		req := httptest.NewRequest("GET", "/private", nil)
		req.Header["Authorization"] = []string{header}
		res, err := s.Inject(req)
		if err != nil {
			t.Fatal(err)
		}
		want := 401
		if len(header) >= 7 && schemeOK(header[:7], "Bearer ") {
			key := strings.TrimSpace(header[7:])
			for _, k := range keys {
				if key == k {
					want = 200
				}
			}
		}
		if res.StatusCode != want {
			t.Fatalf("%q: status %d, want %d", header, res.StatusCode, want)
		}
	})
}
