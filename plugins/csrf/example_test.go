package csrf_test

import (
	"fmt"
	"net/http/httptest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/csrf"
)

// The plugin guards the context that authenticates by cookie: a form
// posted from another site is refused, the same form posted from the
// site itself passes, and so does a client that sends no Fetch metadata
// and no Origin, such as curl.
func Example() {
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(csrf.Plugin(csrf.TrustedOrigins("https://admin.example")))
		return s.Post("/transfer", func(rep *httpx.Reply) error { return rep.Send("done") })
	})

	for _, site := range []string{"cross-site", "same-origin", ""} {
		req := httptest.NewRequest("POST", "/transfer", nil)
		if site != "" {
			req.Header.Set("Sec-Fetch-Site", site)
		}
		res, _ := s.Inject(req)
		fmt.Printf("%q %d\n", site, res.StatusCode)
	}
	// Output:
	// "cross-site" 403
	// "same-origin" 200
	// "" 200
}
