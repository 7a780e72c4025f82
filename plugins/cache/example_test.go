package cache_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/cache"
)

// A public answer is kept for as long as its Cache-Control says: the
// second GET is answered from the store, without calling the handler.
func ExamplePlugin() {
	calls := 0
	s := app.New()
	s.Register(cache.Plugin(cache.NewMemory()))
	_ = app.Get(s, "/prices", func(context.Context, struct{}) (map[string]int, error) {
		calls++
		return map[string]int{"tea": 3}, nil
	}, app.CacheControl("public, max-age=60"))
	for range 2 {
		res, err := s.Inject(httptest.NewRequest("GET", "/prices", nil))
		if err != nil {
			fmt.Println(err)
			return
		}
		res.Body.Close()
		fmt.Println(res.StatusCode, res.Header.Get("Age") != "")
	}
	fmt.Println("handler calls:", calls)
	_ = s.Close(context.Background())
	// Output:
	// 200 false
	// 200 true
	// handler calls: 1
}
