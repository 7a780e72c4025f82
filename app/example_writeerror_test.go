package app_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// A middleware refuses a request in the error shape the server answers
// every error with: problem details here.
func ExampleWriteError() {
	errMaintenance := httpx.NewError(http.StatusServiceUnavailable, "MAINTENANCE", "Back at 08:00 UTC")

	s := app.New(app.WithProblemDetails(), app.WithoutRequestLogging())
	s.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet {
				app.WriteError(w, r, errMaintenance)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	s.Get("/orders", func() (string, error) { return "[]", nil })
	s.Post("/orders", func() (string, error) { return "created", nil })

	res, err := s.Inject(httptest.NewRequest(http.MethodPost, "/orders", nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	fmt.Println(res.StatusCode, res.Header.Get("Content-Type"))
	fmt.Println(string(b))
	// Output:
	// 503 application/problem+json
	// {"type":"about:blank","title":"Service Unavailable","status":503,"detail":"Back at 08:00 UTC","instance":"/orders","code":"MAINTENANCE"}
}
