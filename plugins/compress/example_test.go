package compress_test

import (
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/compress"
)

// Answers of the root and its descendants are compressed as the client
// prefers; the account context, which reflects input beside secrets, is
// not.
func Example() {
	s := app.New()
	s.Register(compress.Plugin())
	s.Get("/report", func() (string, error) { return strings.Repeat("all quiet. ", 200), nil })
	s.Register(func(s *app.Server) error {
		s.Register(compress.Off())
		return s.Get("/me", func() (string, error) { return strings.Repeat("secret ", 200), nil })
	}, app.Prefix("/account"))

	for _, c := range []struct{ path, accept string }{
		{"/report", "gzip, deflate, br, zstd"},
		{"/report", "br;q=1, zstd;q=0.5"},
		{"/report", "gzip;q=0"},
		{"/account/me", "gzip"},
	} {
		req := httptest.NewRequest("GET", c.path, nil)
		req.Header.Set("Accept-Encoding", c.accept)
		res, _ := s.Inject(req)
		fmt.Printf("%s %q: %q %q\n", c.path, c.accept, res.Header.Get("Content-Encoding"), res.Header.Get("Vary"))
	}
	// Output:
	// /report "gzip, deflate, br, zstd": "zstd" "Accept-Encoding"
	// /report "br;q=1, zstd;q=0.5": "br" "Accept-Encoding"
	// /report "gzip;q=0": "" "Accept-Encoding"
	// /account/me "gzip": "" ""
}
